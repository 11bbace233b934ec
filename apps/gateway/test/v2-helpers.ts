import type { LightMyRequestResponse } from '@runplane/http';
import { bearer, type GatewayHarness } from './harness';

/** An account with a key, calling the gateway as that account. */
export interface V2Caller {
  accountId: string;
  secret: string;
  call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse>;
}

/** A new account of the gateway with a key of `scope`, as a caller. */
export async function v2Caller(gw: GatewayHarness, scope: 'ALL' | 'READ_ONLY' = 'ALL'): Promise<V2Caller> {
  const { accountId, secret } = await gw.accountWithKey(scope);
  return {
    accountId,
    secret,
    call: (method, url, payload) =>
      gw.inject({
        method,
        url,
        headers: bearer(secret),
        ...(payload === undefined ? {} : { payload: payload as object }),
      }),
  };
}

/** A problem+json body without its requestId. */
export interface ProblemBody {
  title: string;
  status: number;
  detail: string;
  errors?: string[];
}

/**
 * The problem+json body of an answer, after checking its status, media type and that its `requestId` is the answer's
 * x-request-id; returned without the requestId.
 */
export function problemOf(res: LightMyRequestResponse, status: number): ProblemBody {
  expect({ status: res.statusCode, body: res.body }).toEqual({ status, body: expect.any(String) });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const { requestId, ...body } = res.json<ProblemBody & { requestId?: string }>();
  expect(requestId).toBe(res.headers['x-request-id']);
  expect(body).toEqual(expect.objectContaining({ title: expect.any(String), status, detail: expect.any(String) }));
  return body;
}

/** Every item of a paginated v2 list, following nextCursor with pages of `limit`; also returns how many pages. */
export async function allPages<T>(
  caller: V2Caller,
  url: string,
  key: string,
  limit: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await caller.call('GET', `${url}?${query}`);
    expect(res.statusCode).toBe(200);
    const body = res.json<
      Record<string, unknown> & { pagination: { nextCursor: string | null; hasNextPage: boolean } }
    >();
    items.push(...(body[key] as T[]));
    expect(body.pagination.hasNextPage).toBe(body.pagination.nextCursor !== null);
    cursor = body.pagination.nextCursor;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { items, pages };
}
