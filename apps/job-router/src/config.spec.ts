import { jobRouterEnvSchema } from './config';

/** The read timeouts of RunPod's clients and worker SDK that the job-router's default holds must stay under. */
const RUNPOD_PYTHON_STREAM_READ_TIMEOUT_MS = 10_000; // runpod/endpoint/runner.py: RunPodClient.get(timeout=10)
const RUNPOD_PYTHON_TAKE_TIMEOUT_MS = 90_000; // runpod/serverless/modules/rp_scale.py: jobs_fetcher_timeout

describe('job-router configuration', () => {
  const defaults = jobRouterEnvSchema.parse({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/none' });

  it("answers an empty /stream poll before runpod-python's synchronous stream() gives up on it", () => {
    expect(defaults.JOB_STREAM_WAIT_MS).toBeGreaterThan(0);
    expect(defaults.JOB_STREAM_WAIT_MS).toBeLessThan(RUNPOD_PYTHON_STREAM_READ_TIMEOUT_MS);
  });

  it("answers an empty job-take before the worker SDK's timeout, even at the largest hold allowed", () => {
    expect(defaults.JOB_TAKE_WAIT_MS).toBeLessThan(RUNPOD_PYTHON_TAKE_TIMEOUT_MS);
    expect(() =>
      jobRouterEnvSchema.parse({
        DATABASE_URL: 'postgresql://x',
        JOB_TAKE_WAIT_MS: String(RUNPOD_PYTHON_TAKE_TIMEOUT_MS),
      }),
    ).toThrow();
  });

  it('gives a request BODY_TIMEOUT_MS to arrive, 30 s unless set, and refuses a value under 100 ms', () => {
    expect(defaults.BODY_TIMEOUT_MS).toBe(30_000);
    expect(jobRouterEnvSchema.parse({ DATABASE_URL: 'postgresql://x', BODY_TIMEOUT_MS: '5000' }).BODY_TIMEOUT_MS).toBe(
      5_000,
    );
    expect(() => jobRouterEnvSchema.parse({ DATABASE_URL: 'postgresql://x', BODY_TIMEOUT_MS: '50' })).toThrow();
  });
});
