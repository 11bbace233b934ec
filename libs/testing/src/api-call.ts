/** What a JSON API answered: its status and its parsed body (null when empty). */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** One request to a Runplane API with an API key, `body` (if any) sent as JSON. */
export async function callWithKey(url: string, secret: string, method: string, body?: unknown): Promise<ApiAnswer> {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}
