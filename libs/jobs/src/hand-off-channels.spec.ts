import { SCRIPTS } from './engine-scripts';
import { encodeWake, handOffChannel, parseTakerEntry } from './protocol';
import { originOf, parkedOn, submission, twoReplicas } from './__fixtures__/engine';

/**
 * Where a hand-off travels (see handOffChannel): on its take's replica's own channel, heard by that replica alone;
 * and, for a replica of an earlier release, which hears only the shared wake channel, on that one, in both
 * directions. Two engines on one prefix play two job-router replicas.
 */
describe('RedisJobEngine: hand-off channels', () => {
  const replicas = twoReplicas('jobs-hand-off-channels');
  let n = 0;
  const endpoint = () => `ep${++n}`;
  const takersKey = (endpointId: string) => replicas.f.keys.endpoint(endpointId, 'takers');
  const handOffs = (messages: string[]) => messages.filter((message) => message.startsWith('h|'));

  it("publishes a hand-off on its take's replica's own channel only", async () => {
    const { f, other, wakes } = replicas;
    const ep = endpoint();
    const take = other.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
    await parkedOn(other, 1);
    const run = await f.engine.submit(submission(ep));
    expect((await take).map((job) => job.id)).toEqual([run.id]);
    const heard = handOffs(await wakes.settled());
    expect(heard).toHaveLength(1);
    expect(wakes.messages(handOffChannel(f.keys.wakeChannel, originOf(other)))).toEqual(heard);
    expect(handOffs(wakes.messages(f.keys.wakeChannel))).toEqual([]);
    expect(wakes.messages(handOffChannel(f.keys.wakeChannel, originOf(f.engine)))).toEqual([]);
  });

  it("publishes a hand-off on the shared channel when its replica hears no channel of its own (an earlier release's)", async () => {
    const { f, wakes } = replicas;
    const ep = endpoint();
    // An earlier release's replica registered this take; it hears the shared channel only. A pattern subscription that
    // matches its own channel (an operator's `psubscribe` while the release rolls) does not count as hearing it.
    await f.redis.rpush(takersKey(ep), `earlier-release|its-take|${f.clock.now() + 60_000}|w1`);
    const operator = f.redis.duplicate();
    await operator.psubscribe(`${f.keys.wakeChannel}*`);
    wakes.clear();
    const run = await f.engine.submit(submission(ep)).finally(() => operator.disconnect());
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w1' });
    const heard = (await wakes.settled()).filter((message) => message.startsWith('h|'));
    expect(heard).toEqual([
      expect.stringMatching(new RegExp(`^h\\|earlier-release\\|its-take\\|${ep}\\|${run.id}\\|w1\n`)),
    ]);
    // Heard on the shared channel.
    expect(wakes.messages(f.keys.wakeChannel)).toEqual([...heard, expect.stringMatching(/^x\|marker-/)]);
  });

  it("answers a take from a hand-off published on the shared channel (an earlier release's submission)", async () => {
    const { f, other } = replicas;
    const ep = endpoint();
    const take = other.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000 });
    await parkedOn(other, 1);
    const [registered = ''] = await f.redis.lrange(takersKey(ep), 0, -1);
    const takeId = parseTakerEntry(registered)?.takeId ?? '';
    // What an earlier release's SUBMIT does: the take's entry popped, the job recorded and claimed for its worker, and
    // the hand-off published on the shared channel.
    expect(await f.redis.lpop(takersKey(ep))).toBe(registered);
    const run = await f.engine.submit(submission(ep, { input: { n: 1 } }));
    const claimed = { base: f.keys.base, endpointId: ep, jobId: run.id, workerId: 'w1', now: f.clock.now() };
    expect(await SCRIPTS.claim.run(f.redis, claimed)).toBeTruthy();
    const handOff = { origin: originOf(other), takeId, endpointId: ep, jobId: run.id, workerId: 'w1' };
    const message = encodeWake({ type: 'handOff', ...handOff, input: '{"n":1}', extra: '{}', traceparent: '' });
    await f.redis.publish(f.keys.wakeChannel, message);
    expect(await take).toEqual([{ id: run.id, input: { n: 1 } }]);
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w1' });
  });
});
