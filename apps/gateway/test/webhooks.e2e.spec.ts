import { createAccountsServices } from '@runplane/accounts';
import type { WebhookDeliveryDto, WebhookDeliveryPageDto } from '@runplane/contracts';
import { newId } from '@runplane/db';
import { Webhook } from 'standardwebhooks';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('v1 webhook extension', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };

  beforeAll(async () => {
    gw = await startGateway('webhooks');
    owner = await gw.accountWithKey('ALL');
    other = await gw.accountWithKey('ALL');
  });
  afterAll(() => gw.close());

  const getSecret = (key: string) => gw.inject({ method: 'GET', url: '/v1/webhooks/secret', headers: bearer(key) });
  const rotate = (key: string) =>
    gw.inject({ method: 'POST', url: '/v1/webhooks/secret/rotate', headers: bearer(key) });
  const listDeliveries = (endpointId: string, key: string, query = '') =>
    gw.inject({ method: 'GET', url: `/v1/endpoints/${endpointId}/webhook-deliveries${query}`, headers: bearer(key) });

  async function endpointOf(accountId: string): Promise<string> {
    const template = await gw.db.template.create({
      data: { id: newId(), accountId, name: `tpl-${newId()}`, imageName: 'runplane/echo:1', isServerless: true },
    });
    return (
      await gw.db.endpoint.create({ data: { id: newId(), accountId, name: `ep-${newId()}`, templateId: template.id } })
    ).id;
  }

  /** A delivery written as the dispatcher writes it, `minutesAgo` old, with `attempts` failed attempts. */
  async function delivery(accountId: string, endpointId: string, minutesAgo: number, attempts = 1): Promise<string> {
    const id = newId();
    const createdAt = new Date(Date.now() - minutesAgo * 60_000);
    await gw.db.webhookDelivery.create({
      data: {
        id,
        accountId,
        endpointId,
        jobId: `job-${minutesAgo}`,
        url: 'https://hooks.example.com/runpod',
        sourceKey: `job-${id}`,
        status: 'FAILED',
        attempts,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
        createdAt,
        attemptsMade: {
          create: Array.from({ length: attempts }, (_, i) => ({
            id: newId(),
            jobId: `job-${minutesAgo}`,
            url: 'https://hooks.example.com/runpod',
            attempt: i + 1,
            statusCode: 500,
            durationMs: 12,
            error: 'HTTP 500',
            responseExcerpt: 'oops',
            startedAt: new Date(createdAt.getTime() + i * 10_000),
            finishedAt: new Date(createdAt.getTime() + i * 10_000 + 12),
          })),
        },
      },
    });
    return id;
  }

  describe('signing secret', () => {
    it('is created on first read, stays the same on later reads and is sealed at rest', async () => {
      const first = await getSecret(owner.secret);
      expect(first.statusCode).toBe(200);
      const { secret } = first.json() as { secret: string };
      expect(Object.keys(first.json())).toEqual(['secret']);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect((await getSecret(owner.secret)).json()).toEqual({ secret });

      const row = await gw.db.webhookSigningSecret.findUniqueOrThrow({ where: { accountId: owner.accountId } });
      expect(row.secretEncrypted).toMatch(/^v1\./);
      expect(row.secretEncrypted).not.toContain(secret.slice('whsec_'.length, 20));
    });

    it('is per account', async () => {
      const mine = (await getSecret(owner.secret)).json().secret as string;
      const theirs = (await getSecret(other.secret)).json().secret as string;
      expect(theirs).not.toBe(mine);
    });

    it('rotates to a new secret under which the old signatures no longer verify', async () => {
      const old = (await getSecret(owner.secret)).json().secret as string;
      const body = '{"id":"job-1","status":"COMPLETED"}';
      const headers = signed(old, body);
      const rotated = await rotate(owner.secret);
      expect(rotated.statusCode).toBe(200);
      const fresh = rotated.json().secret as string;
      expect(fresh).toMatch(/^whsec_/);
      expect(fresh).not.toBe(old);
      expect((await getSecret(owner.secret)).json()).toEqual({ secret: fresh });
      expect(() => new Webhook(fresh).verify(body, headers)).toThrow();
      expect(new Webhook(fresh).verify(body, signed(fresh, body))).toEqual(JSON.parse(body));
    });

    it('needs a key that may write: a read-only key may neither read (nor so create) nor rotate it; a restricted key neither', async () => {
      const none = await gw.inject({ method: 'GET', url: '/v1/webhooks/secret' });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toMatchObject({ message: 'Missing API key' });
      const bad = await getSecret('rp_not-a-key');
      expect(bad.statusCode).toBe(401);

      const readOnly = await gw.accountWithKey('READ_ONLY');
      const read = await getSecret(readOnly.secret);
      expect(read.statusCode).toBe(401);
      expect(read.json()).toMatchObject({
        message: 'This API key is read-only; secrets need a key that may write',
        code: 'UNAUTHORIZED',
      });
      expect(read.body).not.toContain('whsec_');
      const refused = await rotate(readOnly.secret);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ message: 'This API key is read-only' });
      // The refused first read created no secret for the account.
      expect(await gw.db.webhookSigningSecret.count({ where: { accountId: readOnly.accountId } })).toBe(0);

      const restricted = await gw.accountWithKey('RESTRICTED', ['ep-x']);
      expect((await getSecret(restricted.secret)).statusCode).toBe(401);
      expect((await rotate(restricted.secret)).statusCode).toBe(401);
    });
  });

  describe('GET /v1/endpoints/{endpointId}/webhook-deliveries', () => {
    it('lists deliveries newest first, each with its attempts in order', async () => {
      const endpointId = await endpointOf(owner.accountId);
      const older = await delivery(owner.accountId, endpointId, 10, 3);
      const newer = await delivery(owner.accountId, endpointId, 1, 1);
      const res = await listDeliveries(endpointId, owner.secret);
      expect(res.statusCode).toBe(200);
      const page = res.json() as WebhookDeliveryPageDto;
      expect(page.nextCursor).toBeNull();
      expect(page.deliveries.map((d) => d.id)).toEqual([newer, older]);
      const first = page.deliveries[1] as WebhookDeliveryDto;
      expect(first).toMatchObject({
        endpointId,
        status: 'FAILED',
        attemptCount: 3,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
        url: 'https://hooks.example.com/runpod',
      });
      expect(first.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
      expect(first.attempts[0]).toEqual({
        attempt: 1,
        url: 'https://hooks.example.com/runpod',
        statusCode: 500,
        durationMs: 12,
        error: 'HTTP 500',
        responseExcerpt: 'oops',
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
      });
      expect(res.body).not.toContain('sourceKey');
      expect(res.body).not.toContain('"body"');
    });

    it('pages with limit and nextCursor without skipping or repeating', async () => {
      const endpointId = await endpointOf(owner.accountId);
      const ids: string[] = [];
      for (let minutes = 5; minutes >= 1; minutes -= 1)
        ids.unshift(await delivery(owner.accountId, endpointId, minutes));
      const seen: string[] = [];
      let query = '?limit=2';
      for (let pages = 0; pages < 5; pages += 1) {
        const page = (await listDeliveries(endpointId, owner.secret, query)).json() as WebhookDeliveryPageDto;
        expect(page.deliveries.length).toBeLessThanOrEqual(2);
        seen.push(...page.deliveries.map((d) => d.id));
        if (!page.nextCursor) break;
        query = `?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`;
      }
      expect(seen).toEqual(ids);
    });

    it('answers bad paging input with 400 naming the field', async () => {
      const endpointId = await endpointOf(owner.accountId);
      const expected = {
        '?limit=0': 'must be >= 1',
        '?limit=101': 'must be <= 100',
        '?limit=abc': 'expected a number',
      };
      for (const [query, message] of Object.entries(expected)) {
        const res = await listDeliveries(endpointId, owner.secret, query);
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toBe(`limit: ${message}`);
      }
      const cursor = await listDeliveries(endpointId, owner.secret, '?cursor=garbage');
      expect(cursor.statusCode).toBe(400);
      expect(cursor.json()).toMatchObject({ message: 'cursor: not a cursor from a previous page' });
    });

    it("hides another account's endpoint and an unknown one (404)", async () => {
      const theirs = await endpointOf(other.accountId);
      await delivery(other.accountId, theirs, 1);
      const peek = await listDeliveries(theirs, owner.secret);
      expect(peek.statusCode).toBe(404);
      expect(peek.json()).toMatchObject({ message: 'Endpoint not found' });
      expect(peek.body).not.toContain('hooks.example.com');
      expect((await listDeliveries('nope', owner.secret)).statusCode).toBe(404);
      expect((await listDeliveries(theirs, other.secret)).statusCode).toBe(200);
    });

    it('keeps listing the deliveries of a deleted endpoint to its former owner only', async () => {
      const endpointId = await endpointOf(owner.accountId);
      const id = await delivery(owner.accountId, endpointId, 1);
      await gw.db.endpoint.delete({ where: { id: endpointId } });
      const res = await listDeliveries(endpointId, owner.secret);
      expect(res.statusCode).toBe(200);
      expect((res.json() as WebhookDeliveryPageDto).deliveries.map((d) => d.id)).toEqual([id]);
      expect((await listDeliveries(endpointId, other.secret)).statusCode).toBe(404);
    });

    it('lets a restricted key list only the endpoints it is scoped to; read-only keys may list', async () => {
      const endpointId = await endpointOf(owner.accountId);
      const elsewhere = await endpointOf(owner.accountId);
      const { apiKeys } = createAccountsServices(gw.db);
      const { secret: restricted } = await apiKeys.create(owner.accountId, {
        name: 'r',
        scope: 'RESTRICTED',
        allowedEndpointIds: [endpointId],
      });
      const { secret: readOnly } = await apiKeys.create(owner.accountId, { name: 'ro', scope: 'READ_ONLY' });
      expect((await listDeliveries(endpointId, restricted)).statusCode).toBe(200);
      expect((await listDeliveries(elsewhere, restricted)).statusCode).toBe(401);
      expect((await listDeliveries(endpointId, readOnly)).statusCode).toBe(200);
      expect(
        (await gw.inject({ method: 'GET', url: `/v1/endpoints/${endpointId}/webhook-deliveries` })).statusCode,
      ).toBe(401);
    });
  });
});

/** Standard Webhooks headers for `body` under `secret`. */
function signed(secret: string, body: string): Record<string, string> {
  const at = new Date();
  return {
    'webhook-id': 'msg_test',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('msg_test', at, body),
  };
}
