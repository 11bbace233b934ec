import { createLogger } from '@runplane/observability';
import type { FastifyBaseLogger } from 'fastify';
import { Writable } from 'node:stream';
import { lazyRequestLogger } from './request-logger';

function memoryLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger({ serviceName: 'test', level, destination }) as unknown as FastifyBaseLogger;
  return { logger, lines };
}

describe('lazyRequestLogger', () => {
  it('makes the child logger only when a line is written at an enabled level, with the request bindings', () => {
    const { logger, lines } = memoryLogger('warn');
    const child = jest.spyOn(logger, 'child');
    const requestLog = lazyRequestLogger(logger, { requestId: 'r-1' }, {});
    requestLog.info('incoming request');
    requestLog.debug({ detail: 1 }, 'noise');
    expect(child).not.toHaveBeenCalled();
    expect(requestLog.level).toBe('warn');
    requestLog.error({ password: 'hunter2' }, 'failed');
    requestLog.warn('slow');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([
      expect.objectContaining({ requestId: 'r-1', msg: 'failed', level: 'error', password: '[Redacted]' }),
      expect.objectContaining({ requestId: 'r-1', msg: 'slow', level: 'warn' }),
    ]);
  });

  it('makes a child at once for a route with its own log level', () => {
    const { logger, lines } = memoryLogger('error');
    const requestLog = lazyRequestLogger(logger, { requestId: 'r-2' }, { level: 'info' });
    requestLog.info('shown');
    expect(lines).toEqual([expect.objectContaining({ requestId: 'r-2', msg: 'shown' })]);
  });
});
