import { closeSync, type FSWatcher, openSync, readSync, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type LogCursor, type LogLine, LOG_TAIL_MAX } from '@runplane/contracts';
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

/** Bytes read at once: a long log is scanned, never held whole. */
const CHUNK_BYTES = 1 << 20;

interface Scan {
  /** Bytes of the complete lines read (a line still being written stays for the next read). */
  bytes: number;
  size: number;
  mtime: Date;
}

/** Hands each complete line of `file` after byte `from` to `onLine`, reading a chunk at a time. */
function scanLines(file: string, from: number, onLine: (line: string) => void): Scan {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return { bytes: 0, size: 0, mtime: new Date(0) };
  }
  if (stat.size <= from) return { bytes: 0, size: stat.size, mtime: stat.mtime };
  const fd = openSync(file, 'r');
  let position = from;
  let carry = Buffer.alloc(0);
  try {
    while (position < stat.size) {
      const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, stat.size - position));
      const read = readSync(fd, chunk, 0, chunk.length, position);
      if (read <= 0) break;
      position += read;
      const data = Buffer.concat([carry, chunk.subarray(0, read)]);
      let start = 0;
      for (let end = data.indexOf(NEWLINE); end >= 0; end = data.indexOf(NEWLINE, start)) {
        onLine(data.subarray(start, end).toString('utf8').replace(/\r$/, ''));
        start = end + 1;
      }
      carry = data.subarray(start);
    }
  } finally {
    closeSync(fd);
  }
  return { bytes: position - from - carry.length, size: stat.size, mtime: stat.mtime };
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
    // At most the lines that can be sent: `tail`, or LOG_TAIL_MAX after a resume point.
    const limit = after || since ? LOG_TAIL_MAX : tail;
    const kept: { seq: number; line: string }[] = [];
    const read = scanLines(this.options.file, 0, (line) => {
      this.lineNo += 1;
      if (!this.wants('container') || (after && this.lineNo <= after.seq)) return;
      kept.push({ seq: this.lineNo, line });
      if (kept.length > 2 * limit + 1024) kept.splice(0, kept.length - limit);
    });
    this.position = read.bytes;
    const mtimeNs = nsOfDate(read.mtime);
    const container: Candidate[] = (since && !after && read.mtime < since ? [] : kept)
      .slice(Math.max(0, kept.length - limit))
      .map(({ seq, line }) => ({ cursor: { ns: mtimeNs, seq }, source: 'container', line }));
    const [start, exit] = this.systemCandidates();
    const keepSystem = (c: Candidate): boolean =>
      after ? c.cursor.ns > after.ns : since ? c.cursor.ns >= nsOfDate(since) : true;
    const all = [start, ...container, exit].filter(
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
      const nowNs = nsOfDate(new Date());
      const fresh: Candidate[] = [];
      const read = scanLines(this.options.file, this.position, (line) =>
        fresh.push({ cursor: { ns: nowNs, seq: ++this.lineNo }, source: 'container', line }),
      );
      if (read.size < this.position) {
        // The file was removed and written again (the Pod was deleted and its id reused): start over.
        this.position = 0;
        this.lineNo = 0;
        return;
      }
      this.position += read.bytes;
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
