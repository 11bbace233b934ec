import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LogLine, type LogSource, parseLogCursor } from '@runplane/contracts';
import { pollUntil } from '@runplane/testing';
import type { LogFollowRequest } from '../compute-driver';
import { LocalLogFollower } from './local-logs';
import type { ProcessRecord } from './process-records';

describe('LocalLogFollower', () => {
  let dir: string;
  let file: string;
  let record: ProcessRecord | null;
  const followers: LocalLogFollower[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'local-logs-'));
    file = join(dir, 'pod1.log');
    record = {
      podId: 'pod1',
      generation: 1,
      pid: 4242,
      phase: 'RUNNING',
      startedAt: '2026-11-24T08:00:00.000Z',
      finishedAt: null,
      machineName: 'local-cpu',
      ports: [],
      reason: null,
    };
  });
  afterEach(() => {
    for (const follower of followers.splice(0)) follower.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function follow(options: Partial<LogFollowRequest> = {}): { lines: LogLine[]; follower: LocalLogFollower } {
    const lines: LogLine[] = [];
    const follower = new LocalLogFollower({
      file,
      record: () => record,
      pollMs: 20,
      request: {
        podId: 'pod1',
        tail: 100,
        since: null,
        after: null,
        sources: ['container', 'system'] as LogSource[],
        onLines: (batch) => lines.push(...batch),
        onError: (error) => {
          throw error;
        },
        ...options,
      },
    });
    followers.push(follower);
    return { lines, follower };
  }

  const texts = (lines: LogLine[]): string[] => lines.map((l) => `${l.source}:${l.line}`);

  it('backfills the last `tail` lines (start first), then follows appended lines and the exit', async () => {
    writeFileSync(file, 'one\ntwo\nthree\npartial');
    const { lines } = follow({ tail: 2 });
    expect(texts(lines)).toEqual(['container:two', 'container:three']);
    appendFileSync(file, ' line\nfour\n');
    await pollUntil(() => lines.length === 4);
    expect(texts(lines).slice(2)).toEqual(['container:partial line', 'container:four']);
    record = {
      ...(record as ProcessRecord),
      phase: 'FAILED',
      finishedAt: '2026-11-24T08:05:00.000Z',
      reason: 'Exit code 3',
    };
    await pollUntil(() => lines.length === 5);
    expect(lines[4]).toMatchObject({
      source: 'system',
      line: 'Failed: Exit code 3',
      ts: '2026-11-24T08:05:00.000000000Z',
    });
    expect(new Set(lines.map((l) => l.id)).size).toBe(5);
  });

  it('sends the whole history with the start line when the tail is large, and filters by source', () => {
    writeFileSync(file, 'a\nb\n');
    expect(texts(follow().lines)).toEqual([
      'system:Started generation 1 as process 4242 on local-cpu',
      'container:a',
      'container:b',
    ]);
    expect(texts(follow({ sources: ['system'] }).lines)).toEqual([
      'system:Started generation 1 as process 4242 on local-cpu',
    ]);
    expect(follow({ tail: 0 }).lines).toEqual([]);
  });

  it('scans a log larger than its read chunk: line numbers, lines across chunk edges, at most 5000 after a resume', () => {
    const lines = Array.from({ length: 120_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(i % 37)}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const last = follow({ tail: 3, sources: ['container'] }).lines;
    expect(last.map((l) => l.line)).toEqual(lines.slice(-3));
    expect(last.map((l) => parseLogCursor(l.id)?.seq)).toEqual([119_998, 119_999, 120_000]);
    const resumed = follow({ after: { ns: 0n, seq: 100 }, sources: ['container'] }).lines;
    expect(resumed).toHaveLength(5000);
    expect(resumed.map((l) => l.line)).toEqual(lines.slice(-5000));
  });

  it('resumes after a Last-Event-ID: only lines after it, whatever the tail', () => {
    writeFileSync(file, 'a\nb\nc\nd\n');
    const first = follow({ tail: 2 }).lines;
    const after = parseLogCursor(first[0]!.id);
    expect(texts(follow({ tail: 1, after }).lines)).toEqual(['container:d']);
  });

  it('skips the backfill when the log did not change since `since`, and ignores the tail when it did', () => {
    writeFileSync(file, 'old\nlines\n');
    expect(texts(follow({ since: new Date(Date.now() + 60_000) }).lines)).toEqual([]);
    expect(texts(follow({ since: new Date(Date.now() - 60_000), tail: 1, sources: ['container'] }).lines)).toEqual([
      'container:old',
      'container:lines',
    ]);
  });

  it('waits for a file that does not exist yet, and releases its timer and file watch once closed', async () => {
    record = null;
    const handles = (): string[] =>
      process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap' || r === 'Timeout');
    await new Promise((resolve) => setImmediate(resolve));
    const before = handles();
    const { lines, follower } = follow();
    expect(handles().length).toBeGreaterThan(before.length);
    expect(lines).toEqual([]);
    writeFileSync(file, 'hello\n');
    await pollUntil(() => lines.length === 1);
    follower.close();
    expect(follower.isClosed).toBe(true);
    // Handles close on the next turn of the event loop.
    await pollUntil(() => handles().length <= before.length, { description: 'the timer and file watch released' });
  });
});
