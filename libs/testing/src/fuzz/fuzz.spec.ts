import { fuzzSeed, requestRandom } from './random';
import { type FuzzContext, type FuzzRequest, fuzzRequest, type FuzzRoute } from './requests';
import { GIVE_UP_AFTER_NO_ANSWERS, isReadinessReport, runFuzz, shapeProblem } from './run';
import { getFreePorts } from '../process';

const route: FuzzRoute = { method: 'POST', path: '/v2/:endpointId/run', query: ['wait'], body: ['input', 'webhook'] };
const context: FuzzContext = {
  ids: { endpointId: ['ep1'] },
  authorizations: ['Bearer k', undefined],
  fieldPool: ['policy', 'ttl'],
};

describe('fuzz requests', () => {
  it('builds request i from the seed and i alone, so a seed replays a run', () => {
    const first = Array.from({ length: 200 }, (_, i) => fuzzRequest(route, requestRandom(42, i), context));
    const again = Array.from({ length: 200 }, (_, i) => fuzzRequest(route, requestRandom(42, i), context));
    const other = Array.from({ length: 200 }, (_, i) => fuzzRequest(route, requestRandom(43, i), context));
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    expect(first.some((request) => request.kind === 'raw')).toBe(true);
    expect(first.some((request) => request.kind === 'http' && request.url.startsWith('/v2/ep1/run'))).toBe(true);
  });

  it('takes the seed from FUZZ_SEED when set and refuses one that is not an integer', () => {
    expect(fuzzSeed({ FUZZ_SEED: '1234' })).toBe(1234);
    expect(Number.isSafeInteger(fuzzSeed({}))).toBe(true);
    expect(() => fuzzSeed({ FUZZ_SEED: 'abc' })).toThrow('FUZZ_SEED must be an integer');
  });
});

describe('shapeProblem', () => {
  const answer = (status: number, body: unknown, requestIdHeader = 'r1') => ({
    status,
    requestIdHeader,
    body: JSON.stringify(body),
  });

  it('accepts successes and errors in the API shape with the request id of the header', () => {
    expect(shapeProblem(answer(200, [1]), 'error')).toBeUndefined();
    expect(shapeProblem(answer(400, { error: 'bad', requestId: 'r1' }), 'error')).toBeUndefined();
    expect(shapeProblem(answer(404, { message: 'Not found', requestId: 'r1' }), 'message')).toBeUndefined();
  });

  it('names a 5xx, another shape, a missing or mismatched request id and a body that is not JSON', () => {
    expect(shapeProblem(answer(500, { error: 'x', requestId: 'r1' }), 'error')).toBe('a 5xx');
    expect(shapeProblem(answer(400, { message: 'x', requestId: 'r1' }), 'error')).toBe(
      'an error without a string "error"',
    );
    expect(shapeProblem(answer(414, { error: 'x' }), 'error')).toBe('an error without a requestId');
    expect(shapeProblem(answer(400, { error: 'x', requestId: 'r2' }), 'error')).toBe(
      'a requestId other than the x-request-id header',
    );
    expect(shapeProblem({ status: 431, requestIdHeader: undefined, body: '' }, 'error')).toBe(
      'an error body that is not JSON',
    );
  });
});

describe('isReadinessReport', () => {
  const report = JSON.stringify({ status: 'unavailable', checks: { postgres: { status: 'error' } } });
  const get = (url: string): FuzzRequest => ({ kind: 'http', method: 'GET', url, headers: {} });

  it('takes a 503 readiness report from /readyz as the probe’s answer, whatever the query', () => {
    expect(isReadinessReport(get('/readyz?=-1e308'), { status: 503, requestIdHeader: 'r1', body: report })).toBe(true);
  });

  it('takes nothing else: another route, another status or another body', () => {
    expect(isReadinessReport(get('/v1/pods'), { status: 503, requestIdHeader: 'r1', body: report })).toBe(false);
    expect(isReadinessReport(get('/readyz'), { status: 500, requestIdHeader: 'r1', body: report })).toBe(false);
    expect(isReadinessReport(get('/readyz'), { status: 503, requestIdHeader: 'r1', body: '{"error":"boom"}' })).toBe(
      false,
    );
    expect(isReadinessReport(get('/readyz'), { status: 503, requestIdHeader: 'r1', body: 'not json' })).toBe(false);
  });
});

describe('runFuzz', () => {
  it('stops once requests in a row get no answer, and names the socket error of each', async () => {
    const [port] = await getFreePorts(1);
    const report = await runFuzz({
      origin: `http://127.0.0.1:${port}`,
      routes: [route],
      context,
      seed: 7,
      requests: 1_000,
      concurrency: 1,
      errorField: 'error',
    });
    expect(report.sent).toBe(GIVE_UP_AFTER_NO_ANSWERS);
    expect(report.byStatus).toEqual({ 'no answer': GIVE_UP_AFTER_NO_ANSWERS });
    expect(report.failures[0]).toMatch(/no answer \(.*ECONNREFUSED/);
  });
});
