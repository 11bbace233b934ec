import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addPlatformOptionals, type Lockfile, missingOptionals, platformOf } from './platform-optionals';

describe('platformOf', () => {
  it.each([
    ['@swc/core-darwin-arm64', { os: 'darwin', cpu: 'arm64' }],
    ['@swc/core-win32-ia32-msvc', { os: 'win32', cpu: 'ia32' }],
    ['@swc/core-linux-arm-gnueabihf', { os: 'linux', cpu: 'arm', libc: 'glibc' }],
    ['@nx/nx-linux-x64-musl', { os: 'linux', cpu: 'x64', libc: 'musl' }],
    ['@unrs/resolver-binding-linux-arm-musleabihf', { os: 'linux', cpu: 'arm', libc: 'musl' }],
    ['@unrs/resolver-binding-android-arm-eabi', { os: 'android', cpu: 'arm' }],
    ['@msgpackr-extract/msgpackr-extract-linux-arm', { os: 'linux', cpu: 'arm' }],
  ])('reads %s', (name, platform) => {
    expect(platformOf(name)).toEqual(platform);
  });

  it('names no platform for a package that is not built for one', () => {
    expect(platformOf('@swc/core')).toBeUndefined();
    expect(platformOf('@unrs/resolver-binding-wasm32-wasi')).toBeUndefined();
  });
});

describe('addPlatformOptionals', () => {
  const lock = (): Lockfile => ({
    packages: {
      '': { name: 'app' },
      'node_modules/native': {
        version: '1.0.0',
        dev: true,
        optionalDependencies: { 'native-linux-x64-gnu': '1.0.0', 'native-darwin-arm64': '1.0.0' },
      },
      'node_modules/native-linux-x64-gnu': { version: '1.0.0', dev: true, optional: true },
      'node_modules/other/node_modules/native': {
        version: '2.0.0',
        optionalDependencies: { 'native-darwin-arm64': '2.0.0', 'native-plugin': '^2.0.0' },
      },
    },
  });

  it('adds an entry for each missing platform package, nested where the root one is taken', () => {
    const file = lock();
    const { added, unresolved } = addPlatformOptionals(file);
    expect(added).toEqual([
      'node_modules/native-darwin-arm64',
      'node_modules/other/node_modules/native/node_modules/native-darwin-arm64',
    ]);
    expect(file.packages['node_modules/native-darwin-arm64']).toEqual({
      version: '1.0.0',
      cpu: ['arm64'],
      dev: true,
      optional: true,
      os: ['darwin'],
    });
    expect(unresolved).toEqual([
      { parent: 'node_modules/other/node_modules/native', name: 'native-plugin', spec: '^2.0.0' },
    ]);
    expect(missingOptionals(file)).toEqual(unresolved);
  });

  it('keeps npm’s order of entries', () => {
    const file = lock();
    addPlatformOptionals(file);
    const keys = Object.keys(file.packages);
    expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b, 'en')));
  });
});

describe('the committed package-lock.json', () => {
  it('resolves every optional dependency, so `npm ci` accepts it on any platform', () => {
    const file = JSON.parse(readFileSync(join(__dirname, '../../package-lock.json'), 'utf8')) as Lockfile;
    // On failure: run `npm run lockfile:platforms` and commit package-lock.json.
    expect(missingOptionals(file)).toEqual([]);
  });
});
