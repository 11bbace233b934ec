import { closeSync, type FSWatcher, openSync, readSync, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { LogCursor, LogLine } from '@runplane/contracts';
import type { LogFollower, LogFollowRequest } from '../compute-driver';
import { logLineAt, nsOfDate } from '../logs/log-lines';
import type { ProcessRecord } from './process-records';

/** Settings of one local log stream. */
export interface LocalLogOptions {
  /** The workload's output file (`<stateDir>/workloads/<podId>.log`, appended to by every generation). */
  file: string;
  /** The workload's current pid record: its start and exit become `system` lines. */
  record: () => ProcessRecord | null;
  request: LogFollowRequest;
  /** How often the file and the record are checked besides file-change notifications. */
  pollMs?: number;
}

interface Candidate {
  cursor: LogCursor;
  source: 'container' | 'system';
  line: string;
}

const NEWLINE = 0x0a;

/** Reads `file` from byte `from`; returns the complete lines and how many bytes they took. */
function readLinesFrom(file: string, from: number): { lines: string[]; bytes: number; size: number; mtime: Date } {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return { lines: [], bytes: 0, size: 0, mtime: new Date(0) };
  }
  if (stat.size <= from) return { lines: [], bytes: 0, size: stat.size, mtime: stat.mtime };
  const buffer = Buffer.alloc(stat.size - from);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, from);
  } finally {
    closeSync(fd);
  }
  const end = buffer.lastIndexOf(NEWLINE);
  if (end < 0) return { lines: [], bytes: 0, size: stat.size, mtime: stat.mtime };
  const lines = buffer
    .subarray(0, end)
    .toString('utf8')
    .split('\n')
    .map((line) => line.replace(/\r$/, ''));
  return { lines, bytes: end + 1, size: stat.size, mtime: stat.mtime };
}

/**
 * Follows a local workload's output file. The process writes to the file directly (so it survives a scheduler
 * restart), hence lines carry no write time: a line's cursor is its line number, its timestamp the file's last
 * change for backfill and the moment it was read when followed. The record's start and exit are `system` lines.
 */
export class LocalLogFollower implements LogFollower {
  private position = 0;
  private lineNo = 0;
  private closed = false;
  private readonly systemSeen = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private watcher: FSWatcher | null = null;

  constructor(private readonly options: LocalLogOptions) {
    this.backfill();
    this.timer = setInterval(() => this.tick(), options.pollMs ?? 250);
    try {
      const name = basename(options.file);
      this.watcher = watch(dirname(options.file), (_event, changed) => {
        if (changed === name) this.tick();
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // No file notifications here: the poll still follows.
    }
  }

  /** True once closed: no timer, no file watch. */
  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.watcher?.close();
    this.watcher = null;
  }

  private wants(source: 'container' | 'system'): boolean {
    return this.options.request.sources.includes(source);
  }

  private backfill(): void {
    const { tail, since, after } = this.options.request;
    const read = readLinesFrom(this.options.file, 0);
    this.position = read.bytes;
    const mtimeNs = nsOfDate(read.mtime);
    const container: Candidate[] = read.lines.map((line, index) => ({
      cursor: { ns: mtimeNs, seq: index + 1 },
      source: 'container',
      line,
    }));
    this.lineNo = read.lines.length;
    const keptContainer = container.filter((c) =>
      after ? c.cursor.seq > after.seq : since ? read.mtime >= since : true,
    );
    const [start, exit] = this.systemCandidates();
    const keepSystem = (c: Candidate): boolean =>
      after ? c.cursor.ns > after.ns : since ? c.cursor.ns >= nsOfDate(since) : true;
    const all = [start, ...keptContainer, exit].filter(
      (c): c is Candidate => c !== undefined && (c.source === 'container' || keepSystem(c)) && this.wants(c.source),
    );
    // `tail` counts back from the end only when no resume point (Last-Event-ID or since) was given.
    const chosen = after || since ? all : all.slice(Math.max(0, all.length - tail));
    if (chosen.length > 0) this.emit(chosen);
  }

  /** The record's start and (once finished) exit, each remembered so it is sent once. */
  private systemCandidates(): [Candidate | undefined, Candidate | undefined] {
    const record = this.options.record();
    if (!record) return [undefined, undefined];
    const startKey = `start:${record.startedAt}`;
    const exitKey = `exit:${record.finishedAt ?? ''}`;
    let start: Candidate | undefined;
    let exit: Candidate | undefined;
    if (!this.systemSeen.has(startKey)) {
      this.systemSeen.add(startKey);
      const line = `Started generation ${record.generation} as process ${record.pid} on ${record.machineName}`;
      start = { cursor: { ns: nsOfDate(new Date(record.startedAt)), seq: 0 }, source: 'system', line };
    }
    if (record.finishedAt !== null && !this.systemSeen.has(exitKey)) {
      this.systemSeen.add(exitKey);
      const line = `${record.phase === 'FAILED' ? 'Failed' : 'Exited'}: ${record.reason ?? 'no reason given'}`;
      exit = { cursor: { ns: nsOfDate(new Date(record.finishedAt)), seq: this.lineNo }, source: 'system', line };
    }
    return [start, exit];
  }

  private tick(): void {
    if (this.closed) return;
    try {
      const read = readLinesFrom(this.options.file, this.position);
      if (read.size < this.position) {
        // The file was removed and written again (the Pod was deleted and its id reused): start over.
        this.position = 0;
        this.lineNo = 0;
        return;
      }
      this.position += read.bytes;
      const nowNs = nsOfDate(new Date());
      const fresh: Candidate[] = read.lines.map((line) => ({
        cursor: { ns: nowNs, seq: ++this.lineNo },
        source: 'container',
        line,
      }));
      const [start, exit] = this.systemCandidates();
      const batch = [start, ...fresh, exit].filter((c): c is Candidate => c !== undefined && this.wants(c.source));
      if (batch.length > 0) this.emit(batch);
    } catch (error) {
      this.close();
      this.options.request.onError(error as Error);
    }
  }

  private emit(candidates: Candidate[]): void {
    const lines: LogLine[] = candidates.map((c) => logLineAt(c.cursor, c.source, c.line));
    this.options.request.onLines(lines);
  }
}
