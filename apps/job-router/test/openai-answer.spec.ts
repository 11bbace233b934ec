import type { JobRecord } from '@runplane/jobs';
import { completedBody, completedEvents, jobErrorBody, jobErrorStatus, sseText } from '../src/openai/openai-answer';
import { openAiGetCall, openAiPostCall, openAiRoute } from '../src/openai/openai-request';

const record = (overrides: Partial<JobRecord>): JobRecord => ({
  id: 'job-1',
  status: 'FAILED',
  retries: 0,
  ...overrides,
});

describe('OpenAI route: requests as jobs', () => {
  it('maps the path after /openai/v1/ to openai_route, keeping deeper segments', () => {
    expect(openAiRoute('chat/completions')).toBe('/v1/chat/completions');
    expect(openAiRoute('models/org/model-a')).toBe('/v1/models/org/model-a');
    expect(() => openAiRoute('')).toThrow('OpenAI route not found');
    expect(() => openAiRoute('x'.repeat(1025))).toThrow(/^path: at most 1024 characters/);
  });

  it('sends GETs without openai_input and POST bodies unchanged, streaming only on stream: true', () => {
    expect(openAiGetCall('models')).toEqual({ input: { openai_route: '/v1/models' }, stream: false });
    const body = { model: 'm', stream: true, messages: [] };
    expect(openAiPostCall('chat/completions', body)).toEqual({
      input: { openai_route: '/v1/chat/completions', openai_input: body },
      stream: true,
    });
    expect(openAiPostCall('completions', { stream: 'yes' }).stream).toBe(false);
    expect(() => openAiPostCall('completions', undefined)).toThrow(/^body: required/);
    expect(() => openAiPostCall('completions', 'text')).toThrow(/^body: must be a JSON object/);
    expect(() => openAiPostCall('completions', null)).toThrow(/^body: must be a JSON object/);
  });
});

describe('OpenAI route: jobs as answers', () => {
  it("unwraps a generator worker's single yield, from its output or its stream chunks", () => {
    const json = { object: 'chat.completion' };
    expect(completedBody([json], [])).toEqual(json);
    expect(completedBody([], [json])).toEqual(json);
    expect(completedBody(undefined, [json])).toEqual(json);
    expect(completedBody(undefined, ['a', 'b'])).toEqual(['a', 'b']);
    expect(completedBody({ plain: true }, [])).toEqual({ plain: true });
    expect(completedBody(['a', 'b'], [])).toEqual(['a', 'b']);
    expect(completedBody(undefined, [])).toBeNull();
  });

  it('passes raw SSE text through and wraps anything else as a data event', () => {
    expect(sseText('data: {"a":1}\n\n')).toEqual({ text: 'data: {"a":1}\n\n', raw: true });
    expect(sseText({ a: 1 })).toEqual({ text: 'data: {"a":1}\n\n', raw: false });
    expect(completedEvents({ a: 1 })).toEqual(['data: {"a":1}\n\n', 'data: [DONE]\n\n']);
    expect(completedEvents('data: x\n\n')).toEqual(['data: x\n\n']);
  });

  it("answers a failure with OpenAI's error object: the worker's own, its exception report, or its text", () => {
    const own = JSON.stringify({
      message: 'context too long',
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
    });
    expect(jobErrorBody(record({ error: own }))).toEqual({
      error: { message: 'context too long', type: 'invalid_request_error', code: 'context_length_exceeded' },
    });
    const wrapped = JSON.stringify({ error: { message: 'model broken', type: 'worker_error', code: null } });
    expect(jobErrorBody(record({ error: wrapped }))).toEqual({
      error: { message: 'model broken', type: 'worker_error', code: null },
    });
    const report = JSON.stringify({
      error_type: 'RuntimeError',
      error_message: 'CUDA out of memory',
      error_traceback: '...',
    });
    expect(jobErrorBody(record({ error: report }))).toEqual({
      error: { message: 'CUDA out of memory', type: 'worker_error', code: null },
    });
    expect(jobErrorBody(record({ error: 'plain words' }))).toEqual({
      error: { message: 'plain words', type: 'worker_error', code: null },
    });
    expect(jobErrorBody(record({}))).toEqual({
      error: { message: 'Job job-1 failed', type: 'worker_error', code: null },
    });
    expect(jobErrorBody(record({ status: 'TIMED_OUT' }))).toEqual({
      error: { message: 'Job job-1 timed out', type: 'timeout', code: 'job_timed_out' },
    });
    expect(jobErrorBody(record({ status: 'CANCELLED' })).error.code).toBe('job_cancelled');
  });

  it('answers a cancelled job 409, not to be retried, and a failed or timed-out one 500', () => {
    expect(jobErrorStatus(record({ status: 'CANCELLED' }))).toEqual({ status: 409, retry: false });
    expect(jobErrorStatus(record({ status: 'FAILED' }))).toEqual({ status: 500, retry: true });
    expect(jobErrorStatus(record({ status: 'TIMED_OUT' }))).toEqual({ status: 500, retry: true });
  });
});
