// The gateway read path's baseline, run as its own process: bare Fastify + pg doing the same authenticated reads as
// the gateway, with no Runplane code. The API key is looked up by its sha-256 hash and, as Runplane does, trusted for
// AUTH_CACHE_TTL_MS without asking Postgres again; each read is then one query: the Pod row with its savings plans
// (what v1 prices a Pod with), or the account's endpoints with their templates' env (what v1 merges into theirs).
import { createHash } from 'node:crypto';
import { AUTH_CACHE_TTL_MS } from '@runplane/accounts';
import { createFastify, type FastifyRequest } from '@runplane/http';
// A baseline measures the bare driver, so it imports pg itself rather than through @runplane/db's Prisma client.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import { Pool } from 'pg';

const KEY_SQL = 'SELECT "accountId", scope, disabled FROM api_keys WHERE hash = $1';
const POD_SQL = `SELECT p.*, COALESCE((SELECT json_agg(s ORDER BY s."startTime") FROM savings_plans s
  WHERE s."podId" = p.id), '[]') AS "savingsPlans" FROM pods p WHERE p.id = $1 AND p."accountId" = $2`;
const ENDPOINTS_SQL = `SELECT e.*, t.env AS "templateEnv" FROM endpoints e LEFT JOIN templates t ON t.id = e."templateId"
  WHERE e."accountId" = $1 ORDER BY e."createdAt", e.id`;

const keys = new Map<string, { accountId: string; expiresAt: number }>();

/** The account of the request's enabled key, or undefined. */
async function accountOf(pool: Pool, request: FastifyRequest): Promise<string | undefined> {
  const secret = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();
  if (!secret) return undefined;
  const hash = createHash('sha256').update(secret).digest('hex');
  const cached = keys.get(hash);
  if (cached && cached.expiresAt > Date.now()) return cached.accountId;
  const key = (await pool.query(KEY_SQL, [hash])).rows[0];
  if (!key || key.disabled) return undefined;
  keys.set(hash, { accountId: key.accountId, expiresAt: Date.now() + AUTH_CACHE_TTL_MS });
  return key.accountId;
}

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const app = createFastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get<{ Params: { id: string } }>('/pods/:id', async (request, reply) => {
    const accountId = await accountOf(pool, request);
    if (!accountId) return reply.code(401).send({ error: 'Invalid API key' });
    const pod = (await pool.query(POD_SQL, [request.params.id, accountId])).rows[0];
    if (!pod) return reply.code(404).send({ error: 'Pod not found' });
    return pod;
  });
  app.get('/endpoints', async (request, reply) => {
    const accountId = await accountOf(pool, request);
    if (!accountId) return reply.code(401).send({ error: 'Invalid API key' });
    const rows = (await pool.query(ENDPOINTS_SQL, [accountId])).rows;
    return rows.map(({ templateEnv, ...endpoint }) => ({ ...endpoint, env: { ...templateEnv, ...endpoint.env } }));
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
