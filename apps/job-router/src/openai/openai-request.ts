import { NotFoundError, ValidationError } from '@runplane/contracts';

/** One OpenAI-compatible request as the job a worker gets (RunPod's passthrough input). */
export interface OpenAiCall {
  /** Job input: `{openai_route: "/v1/<path>", openai_input?: <request body>}`. */
  input: { openai_route: string; openai_input?: Record<string, unknown> };
  /** The client asked for server-sent events (`"stream": true`). */
  stream: boolean;
}

/** Longest `<path>` after `/openai/v1/` (model ids may hold slashes, so segments are not checked). */
const MAX_PATH_LENGTH = 1024;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The route a worker dispatches on, from the path after `/openai/v1/`; 404 when there is none. */
export function openAiRoute(path: string): string {
  const trimmed = path.replace(/^\/+/, '');
  if (trimmed === '') throw new NotFoundError('OpenAI route');
  if (trimmed.length > MAX_PATH_LENGTH)
    throw new ValidationError(`path: at most ${MAX_PATH_LENGTH} characters after /openai/v1/`);
  return `/v1/${trimmed}`;
}

/** A body-less GET (e.g. /v1/models): the job carries no `openai_input`. */
export function openAiGetCall(path: string): OpenAiCall {
  return { input: { openai_route: openAiRoute(path) }, stream: false };
}

/** A POST: the request's JSON object goes to the worker unchanged as `openai_input`. */
export function openAiPostCall(path: string, body: unknown): OpenAiCall {
  const route = openAiRoute(path);
  if (body === undefined) throw new ValidationError('body: required, a JSON object (the OpenAI request)');
  if (!isPlainObject(body)) throw new ValidationError('body: must be a JSON object (the OpenAI request)');
  return { input: { openai_route: route, openai_input: body }, stream: body.stream === true };
}
