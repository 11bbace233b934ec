import { workerEnv } from './worker-env';

describe('workerEnv', () => {
  const env = workerEnv({
    jobApiUrl: 'http://127.0.0.1:8081/',
    endpointId: 'ep1',
    workerId: 'w1',
    gpuTypeId: 'NVIDIA GeForce RTX 4090',
    token: 'rpw_secret',
    pingIntervalMs: 10_000,
  });

  it('gives URL templates that contain "?" and /job-take/, the worker id filled in and $ID left for the SDK', () => {
    expect(env.RUNPOD_WEBHOOK_GET_JOB).toBe('http://127.0.0.1:8081/v2/ep1/job-take/w1?gpu=NVIDIA+GeForce+RTX+4090');
    expect(env.RUNPOD_WEBHOOK_POST_OUTPUT).toBe(
      'http://127.0.0.1:8081/v2/ep1/job-done/w1/$ID?gpu=NVIDIA+GeForce+RTX+4090',
    );
    expect(env.RUNPOD_WEBHOOK_POST_STREAM).toBe(
      'http://127.0.0.1:8081/v2/ep1/job-stream/w1/$ID?gpu=NVIDIA+GeForce+RTX+4090',
    );
    expect(env.RUNPOD_WEBHOOK_JOB_STREAM).toBe(env.RUNPOD_WEBHOOK_POST_STREAM);
    expect(env.RUNPOD_WEBHOOK_PING).toBe('http://127.0.0.1:8081/v2/ep1/ping/w1?gpu=NVIDIA+GeForce+RTX+4090');
  });

  it('carries the token, ids, ping interval and the system-check skip', () => {
    expect(env).toMatchObject({
      RUNPOD_AI_API_KEY: 'rpw_secret',
      RUNPOD_POD_ID: 'w1',
      RUNPOD_ENDPOINT_ID: 'ep1',
      RUNPOD_PING_INTERVAL: '10000',
      RUNPOD_SKIP_AUTO_SYSTEM_CHECKS: 'true',
    });
  });

  it('names CPU workers in the gpu parameter', () => {
    const cpu = workerEnv({
      jobApiUrl: 'http://h:1',
      endpointId: 'e',
      workerId: 'w',
      gpuTypeId: null,
      token: 't',
      pingIntervalMs: 1000,
    });
    expect(cpu.RUNPOD_WEBHOOK_GET_JOB).toBe('http://h:1/v2/e/job-take/w?gpu=CPU');
  });
});
