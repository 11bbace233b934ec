import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PidRecord, readPids, STATE_FILES, writePids } from './state';

const record = (runner: number): PidRecord => ({
  runner,
  apps: { gateway: runner + 1, 'job-router': runner + 2 },
  services: {},
  ports: { gateway: 3000 },
});

/** Everything the open file `fd` holds, read from its start. */
function readAll(fd: number): string {
  const buffer = Buffer.alloc(64 * 1024);
  return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
}

describe('writePids', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'runplane-state-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces pids.json whole: a reader of the old file still reads the whole old record, never a cut one', () => {
    writePids(dir, record(100));
    const reader = openSync(join(dir, STATE_FILES.pids), 'r');
    try {
      writePids(dir, record(200));
      // Rewritten in place, the open file would now hold the new record (or nothing, between truncate and write).
      expect(JSON.parse(readAll(reader))).toEqual(record(100));
    } finally {
      closeSync(reader);
    }
    expect(readPids(dir)).toEqual(record(200));
  });

  it('leaves no file aside once written', () => {
    writePids(dir, record(100));
    writePids(dir, record(300));
    expect(readdirSync(dir)).toEqual([STATE_FILES.pids]);
  });
});
