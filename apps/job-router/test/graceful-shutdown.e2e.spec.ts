import { pollUntil } from '@runplane/testing';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';

/**
 * A closing job-router answers its parked long polls at once with what it has, instead of holding its shutdown for
 * their whole wait or closing their connections unanswered: a worker's take answers 204, a /runsync `{id, status}`
 * (the job stays queued for a worker of another replica).
 */
describe('job-router shutdown with long polls parked', () => {
  let h: JobRouterHarness;

  beforeAll(async () => {
    // Holds far longer than the test may run, so only the shutdown can end the polls.
    h = await startJobRouter('jr-shutdown', { JOB_TAKE_WAIT_MS: '85000' });
  });
  afterAll(() => h.close());

  it('answers a parked job-take with 204 and a parked /runsync with the queued job when the server starts closing', async () => {
    const account = await h.accountWithKey();
    const takeEndpoint = await h.endpoint(account.accountId);
    const syncEndpoint = await h.endpoint(account.accountId);
    const worker = raw(await h.workerToken(takeEndpoint, 'w1'));
    const take = h.inject({ method: 'GET', url: `/v2/${takeEndpoint}/job-take/w1?job_in_progress=0`, headers: worker });
    const runsync = h.inject({
      method: 'POST',
      url: `/v2/${syncEndpoint}/runsync?wait=300000`,
      headers: bearer(account.secret),
      payload: { input: { n: 1 } },
    });
    // Both handlers are running once the take's heartbeat made w1 live and the /runsync job is queued.
    await pollUntil(async () => (await h.engine().workers(takeEndpoint)).idle.includes('w1'), {
      description: 'take parked',
    });
    await pollUntil(async () => (await h.engine().counts(syncEndpoint)).inQueue === 1, {
      description: 'runsync parked',
    });

    await h.app.getHttpAdapter().getInstance().close();

    expect((await take).statusCode).toBe(204);
    const answer = await runsync;
    expect(answer.statusCode).toBe(200);
    const { id, status } = answer.json() as { id: string; status: string };
    expect(status).toBe('IN_QUEUE');
    expect((await h.engine().get(syncEndpoint, id)).status).toBe('IN_QUEUE');
  });
});
