import { Writable } from 'node:stream';
import { createLogger } from './index';

function memoryDestination(): { stream: Writable; lines: () => Record<string, unknown>[]; raw: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const raw = () => chunks.join('');
  const lines = () =>
    raw()
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, lines, raw };
}

describe('createLogger', () => {
  it('writes JSON with the service name and level label', () => {
    const dest = memoryDestination();
    const logger = createLogger({ serviceName: 'gateway', level: 'info', destination: dest.stream });
    logger.info({ podId: 'p1' }, 'pod created');
    logger.debug('below the level');
    const lines = dest.lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ service: 'gateway', level: 'info', podId: 'p1', msg: 'pod created' });
    expect(typeof lines[0]?.time).toBe('string');
  });

  it('redacts credential headers and secret fields', () => {
    const dest = memoryDestination();
    const logger = createLogger({ serviceName: 'job-router', level: 'info', destination: dest.stream });
    logger.info(
      {
        req: { method: 'POST', headers: { authorization: 'Bearer rpa_SECRET1', 'x-api-key': 'SECRET2', host: 'h' } },
        headers: { authorization: 'Basic SECRET3' },
        password: 'SECRET4',
        user: { password: 'SECRET5', name: 'ada' },
        registryAuth: { credentials: { token: 'SECRET6', secret: 'SECRET7' } },
        apiKey: 'SECRET8',
        key: 'SECRET9',
      },
      'request',
    );
    logger.child({ token: 'SECRET10' }).info('child bindings are redacted too');
    const raw = dest.raw();
    for (let i = 1; i <= 10; i += 1) expect(raw).not.toContain(`SECRET${i}`);
    const [first] = dest.lines();
    expect(first).toMatchObject({
      req: { method: 'POST', headers: { authorization: '[Redacted]', 'x-api-key': '[Redacted]', host: 'h' } },
      user: { password: '[Redacted]', name: 'ada' },
    });
  });
});
