// The gateway read path's baseline, run as its own process: bare Fastify + pg doing the same authenticated read as
// GET /v1/pods/{id} (the API key looked up by its sha-256 hash, then the account's row read), with no Runplane code.
import { createHash } from 'node:crypto';
import { createFastify } from '@runplane/http';
// A baseline measures the bare driver, so it imports pg itself rather than through @runplane/db's Prisma client.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import { Pool } from 'pg';

const KEY_SQL = 'SELECT "accountId", scope, disabled FROM api_keys WHERE hash = $1';
const POD_SQL = 'SELECT * FROM pods WHERE id = $1 AND "accountId" = $2';

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const app = createFastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get<{ Params: { id: string } }>('/pods/:id', async (request, reply) => {
    const secret = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();
    const hash = createHash('sha256')
      .update(secret ?? '')
      .digest('hex');
    const key = secret ? (await pool.query(KEY_SQL, [hash])).rows[0] : undefined;
    if (!key || key.disabled) return reply.code(401).send({ error: 'Invalid API key' });
    const pod = (await pool.query(POD_SQL, [request.params.id, key.accountId])).rows[0];
    if (!pod) return reply.code(404).send({ error: 'Pod not found' });
    return pod;
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  const stop = (): void => {
    void app.close().then(async () => {
      await pool.end();
      process.exit(0);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
