import { FUZZ_SEED_ENV, requestRandom } from './random';
import { type FuzzContext, type FuzzRequest, fuzzRequest, type FuzzRoute } from './requests';
import { type FuzzAnswer, FuzzTransport } from './transport';

/**
 * Which error shape an API answers in: v1 `{"message"}`, the job API's `{"error"}` or v2's problem+json `{"detail"}`,
 * all with `requestId`.
 */
export type FuzzErrorField = 'message' | 'error' | 'detail';

/** A fuzz run over a listening server. */
export interface FuzzRunOptions {
  origin: string;
  routes: readonly FuzzRoute[];
  context: FuzzContext;
  seed: number;
  requests: number;
  /** Requests in flight at once. */
  concurrency: number;
  errorField: FuzzErrorField;
}

/** What a run saw: requests sent, answers by status class, and every answer that broke a rule. */
export interface FuzzReport {
  sent: number;
  byStatus: Record<string, number>;
  failures: string[];
}

/**
 * Requests in a row that got no answer after which a run stops: the server is gone, and the rest would only add
 * minutes before the failures (each with its socket error) are reported.
 */
export const GIVE_UP_AFTER_NO_ANSWERS = 50;

/** Why an answer breaks the rules (a 5xx, or an error outside the API's shape or without its request id), if it does. */
export function shapeProblem(answer: FuzzAnswer, field: FuzzErrorField): string | undefined {
  if (answer.status >= 500) return 'a 5xx';
  if (answer.status < 400 && answer.status >= 200) return undefined;
  if (answer.status < 200) return 'no status';
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return 'an error body that is not JSON';
  }
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof fields[field] !== 'string') return `an error without a string "${field}"`;
  if (typeof fields.requestId !== 'string') return 'an error without a requestId';
  if (answer.requestIdHeader !== fields.requestId) return 'a requestId other than the x-request-id header';
  return undefined;
}

function describe(request: FuzzRequest): string {
  if (request.kind === 'raw') return `raw ${request.summary}`;
  return `${request.method} ${request.url.slice(0, 160)} ${request.headers['content-type'] ?? ''} ${(request.body ?? '').slice(0, 120)}`;
}

/**
 * `/readyz` answers 503 with its readiness report when PostgreSQL or Redis is slow to answer, as on a machine the
 * fuzz load itself keeps busy: that is the probe doing its job, not a request it failed to handle.
 */
export function isReadinessReport(request: FuzzRequest, answer: FuzzAnswer): boolean {
  if (request.kind !== 'http' || request.url.split('?')[0] !== '/readyz' || answer.status !== 503) return false;
  try {
    const report = JSON.parse(answer.body) as { status?: unknown; checks?: unknown };
    return report.status === 'unavailable' && typeof report.checks === 'object' && report.checks !== null;
  } catch {
    return false;
  }
}

async function sendOne(
  transport: FuzzTransport,
  request: FuzzRequest,
  field: FuzzErrorField,
): Promise<{ status: string; problem?: string }> {
  try {
    const answer = await transport.send(request);
    const problem = isReadinessReport(request, answer) ? undefined : shapeProblem(answer, field);
    return {
      status: String(answer.status),
      problem: problem && `${problem}: ${answer.status} ${answer.body.slice(0, 200)}`,
    };
  } catch (error) {
    const { code, message, cause } = error as NodeJS.ErrnoException & { cause?: { message?: string } };
    return {
      status: 'no answer',
      problem: `no answer (${[code, message, cause?.message].filter(Boolean).join(': ')})`,
    };
  }
}

/**
 * Sends `requests` fuzzed requests, cycling through the routes, `concurrency` at a time. Request i is built from the
 * seed and i alone, so FUZZ_SEED=<seed> replays a run; each failure names its request number and the seed.
 */
export async function runFuzz(options: FuzzRunOptions): Promise<FuzzReport> {
  const transport = new FuzzTransport(new URL(options.origin), options.concurrency);
  const report: FuzzReport = { sent: 0, byStatus: {}, failures: [] };
  let next = 0;
  let noAnswersInARow = 0;
  const lane = async (): Promise<void> => {
    for (let index = next++; index < options.requests; index = next++) {
      const route = options.routes[index % options.routes.length] as FuzzRoute;
      const request = fuzzRequest(route, requestRandom(options.seed, index), options.context);
      const { status, problem } = await sendOne(transport, request, options.errorField);
      report.sent += 1;
      report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
      if (problem)
        report.failures.push(`#${index} ${describe(request)} → ${problem} (replay: ${FUZZ_SEED_ENV}=${options.seed})`);
      noAnswersInARow = status === 'no answer' ? noAnswersInARow + 1 : 0;
      if (noAnswersInARow >= GIVE_UP_AFTER_NO_ANSWERS) next = options.requests;
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, lane));
  } finally {
    await transport.close();
  }
  return report;
}
