import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientBuildId, PEER_MODULE_DIR, peerBinaries, peerCacheDir, TEMPORAL_CLI_VERSION } from './build';

describe('the peer bench build', () => {
  let copy: string;

  beforeEach(() => {
    copy = mkdtempSync(path.join(os.tmpdir(), 'peer-module-'));
    cpSync(PEER_MODULE_DIR, copy, { recursive: true });
  });

  afterEach(() => rmSync(copy, { recursive: true, force: true }));

  it('pins the Temporal CLI it starts in its committed Go module', () => {
    const goMod = readFileSync(path.join(PEER_MODULE_DIR, 'go.mod'), 'utf8');
    expect(goMod).toContain(`github.com/temporalio/cli ${TEMPORAL_CLI_VERSION}\n`);
    expect(readFileSync(path.join(PEER_MODULE_DIR, 'go.sum'), 'utf8')).toContain(
      `github.com/temporalio/cli ${TEMPORAL_CLI_VERSION} h1:`,
    );
  });

  it('gives the bench client a build id that follows its sources, so a stale cached client is rebuilt', () => {
    const before = clientBuildId(copy);
    expect(clientBuildId(copy)).toBe(before);
    expect(clientBuildId(PEER_MODULE_DIR)).toBe(before);
    const source = path.join(copy, 'cmd', 'peer-bench', 'main.go');
    writeFileSync(source, `${readFileSync(source, 'utf8')}\n// changed\n`);
    expect(clientBuildId(copy)).not.toBe(before);
  });

  it('caches the binaries under $RUNPLANE_TEMPORAL_CACHE, else ~/.cache/runplane/temporal', () => {
    expect(peerBinaries({ RUNPLANE_TEMPORAL_CACHE: copy })).toEqual({
      temporal: path.join(copy, 'temporal'),
      client: path.join(copy, 'peer-bench'),
    });
    expect(peerCacheDir({})).toBe(path.join(os.homedir(), '.cache', 'runplane', 'temporal'));
  });
});
