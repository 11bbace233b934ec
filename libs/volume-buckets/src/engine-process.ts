import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import type { SigningKey } from './sigv4';

/** Where and how the S3 engine (versitygw's POSIX backend) runs. */
export interface EngineOptions {
  /** The versitygw binary (built by `npm run s3:build`). */
  binary: string;
  /** The directory whose subdirectories are the buckets: one per network volume, named by its id. */
  volumesDir: string;
  /** Object metadata (ETags, content types, multipart state) kept outside the volumes, so Pods see plain files. */
  metadataDir: string;
  /** The region the engine answers for (the data center id, lower-case). */
  region: string;
  /** How long to wait for the engine to accept connections. */
  startTimeoutMs: number;
}

/** A running engine: its loopback address and the root key only the proxy knows. */
export interface RunningEngine {
  host: string;
  port: number;
  key: SigningKey;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no loopback port');
  return address.port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket.end() !== undefined));
    socket.once('error', () => resolve(false));
  });
}

async function waitUntilListening(child: ChildProcess, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`the S3 engine exited with code ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`the S3 engine did not listen on 127.0.0.1:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Starts versitygw's POSIX backend on a loopback port with a fresh root key: only the proxy in front of it, which
 * re-signs every request it admitted, can reach it.
 */
export async function startEngine(options: EngineOptions): Promise<RunningEngine> {
  mkdirSync(options.volumesDir, { recursive: true });
  mkdirSync(options.metadataDir, { recursive: true });
  const port = await freePort();
  const key = {
    accessKeyId: `root${randomBytes(8).toString('hex')}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
    region: options.region,
  };
  const args = ['--access', key.accessKeyId, '--secret', key.secretAccessKey, '--region', key.region];
  args.push('--port', `127.0.0.1:${port}`, '--quiet', 'posix', '--sidecar', options.metadataDir, options.volumesDir);
  const child = spawn(options.binary, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) =>
      reject(new Error(`The S3 engine ${options.binary} did not start (npm run s3:build builds it)`, { cause: error })),
    );
  });
  await spawned;
  try {
    await waitUntilListening(child, port, options.startTimeoutMs);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { host: '127.0.0.1', port, key, stop: () => stopChild(child) };
}
