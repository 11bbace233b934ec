import { protocolUrlsFor, protocolUrlsFromEnv, resolveSettings, WorkerConfigError } from './index';
import { fillJob, fillWorker, swapRoute, withQuery } from './urls';

const handler = async (): Promise<void> => undefined;

describe('protocol URL templates', () => {
  it('reads RunPod env templates, deriving stream and ping when absent', () => {
    const urls = protocolUrlsFromEnv({
      RUNPOD_WEBHOOK_GET_JOB: 'http://h/v2/e/job-take/$ID?gpu=x',
      RUNPOD_WEBHOOK_POST_OUTPUT: 'http://h/v2/e/job-done/$RUNPOD_POD_ID/$ID?gpu=x',
      RUNPOD_WEBHOOK_JOB_STREAM: 'http://h/v2/e/job-stream/$RUNPOD_POD_ID/$ID?gpu=x',
    });
    expect(urls).toEqual({
      take: 'http://h/v2/e/job-take/$ID?gpu=x',
      done: 'http://h/v2/e/job-done/$RUNPOD_POD_ID/$ID?gpu=x',
      stream: 'http://h/v2/e/job-stream/$RUNPOD_POD_ID/$ID?gpu=x',
      ping: 'http://h/v2/e/ping/$ID?gpu=x',
    });
    expect(protocolUrlsFromEnv({})).toBeUndefined();
    expect(() => protocolUrlsFromEnv({ RUNPOD_WEBHOOK_GET_JOB: 'http://h/take' })).toThrow(/job-take/);
    expect(() => protocolUrlsFromEnv({ RUNPOD_WEBHOOK_GET_JOB: 'http://h/v2/e/job-take/$ID' })).toThrow(/POST_OUTPUT/);
  });

  it('fills worker and job placeholders, worker first, and appends queries RunPod-style', () => {
    expect(fillWorker('http://h/job-take/$ID?a=1', 'w 1')).toBe('http://h/job-take/w%201?a=1');
    expect(fillWorker('http://h/ping/$RUNPOD_POD_ID', 'w1')).toBe('http://h/ping/w1');
    expect(fillJob('http://h/job-done/$RUNPOD_POD_ID/$ID', 'w1', 'j1')).toBe('http://h/job-done/w1/j1');
    expect(withQuery('http://h/x?gpu=a', { job_in_progress: 0, skip: undefined })).toBe(
      'http://h/x?gpu=a&job_in_progress=0',
    );
    expect(withQuery('http://h/x', { a: 'b c' })).toBe('http://h/x?a=b%20c');
    expect(withQuery('http://h/x?', { a: 1 })).toBe('http://h/x?a=1');
    expect(swapRoute('http://h/v2/e/job-take/w?gpu=a', 'job-stop')).toBe('http://h/v2/e/job-stop/w?gpu=a');
    expect(protocolUrlsFor('http://h:8081/v2/', 'ep').take).toBe('http://h:8081/v2/ep/job-take/$RUNPOD_POD_ID');
  });

  it('resolves settings from options over env, and refuses a missing token, URLs or a busy-loop ping interval', () => {
    const settings = resolveSettings({
      handler,
      baseUrl: 'http://h/v2',
      endpointId: 'ep',
      env: { RUNPOD_AI_API_KEY: 'k', RUNPOD_POD_ID: 'pod', RUNPOD_PING_INTERVAL: '2500' },
    });
    expect(settings).toMatchObject({
      token: 'k',
      workerId: 'pod',
      pingIntervalMs: 2500,
      concurrency: 1,
      pollTimeoutMs: 90000,
    });
    expect(() => resolveSettings({ handler, baseUrl: 'http://h/v2', endpointId: 'e', env: {} })).toThrow(
      WorkerConfigError,
    );
    expect(() => resolveSettings({ handler, token: 't', env: {} })).toThrow(/RUNPOD_WEBHOOK_GET_JOB/);
    expect(() => resolveSettings({ handler, token: 't', baseUrl: 'http://h/v2', env: {} })).toThrow(/endpointId/);
    const env = { RUNPOD_PING_INTERVAL: '500' };
    expect(() => resolveSettings({ handler, token: 't', baseUrl: 'http://h/v2', endpointId: 'e', env })).toThrow(
      />= 1000/,
    );
    expect(() =>
      resolveSettings({ handler, token: 't', baseUrl: 'http://h/v2', endpointId: 'e', env: {}, concurrency: 0 }),
    ).toThrow(/concurrency/);
  });
});
