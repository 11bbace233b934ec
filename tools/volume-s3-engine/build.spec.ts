import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { engineBinaryPath, ENGINE_VERSION } from '@runplane/volume-buckets';
import { ENGINE_MODULE_DIR, VERSION_LINE } from './build';

describe('the S3 engine build', () => {
  it('pins the versitygw version the endpoint expects in its committed Go module', () => {
    const goMod = readFileSync(path.join(ENGINE_MODULE_DIR, 'go.mod'), 'utf8');
    expect(goMod).toContain(`require github.com/versity/versitygw ${ENGINE_VERSION}\n`);
    expect(readFileSync(path.join(ENGINE_MODULE_DIR, 'go.sum'), 'utf8')).toContain(
      `github.com/versity/versitygw ${ENGINE_VERSION} h1:`,
    );
  });

  it('has the pinned engine in the cache (npm run s3:build, run by .ci/run)', async () => {
    const { stdout } = await promisify(execFile)(engineBinaryPath(), ['--version']);
    expect(stdout).toContain(VERSION_LINE);
  });
});
