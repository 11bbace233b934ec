// What a pass starts from, against real Postgres: the endpoints are kept between passes and only the rows written
// since are read, yet every change made between two passes (an endpoint edited, added or deleted, its template
// edited, a worker added or removed) is in the next pass's snapshot; a write that commits with an updatedAt before
// the previous read is seen within the margin, else by the periodic full read.
import { createAccountsServices } from '@runplane/accounts';
import { newId } from '@runplane/db';
import { ScalingRepository } from '@runplane/endpoints';
import { CapacityRepository } from '@runplane/placement';
import { createTestStores, type TestStores } from '@runplane/testing';
import { PlacementService } from '../placement/placement.service';
import { WorkerFleet } from './worker-fleet';

describe('WorkerFleet.snapshot: changes between passes', () => {
  let stores: TestStores;
  let db: TestStores['db'];
  let accountId: string;
  let templateId: string;
  let skewMs = 0;
  const clock = () => Date.now() + skewMs;

  const fleet = (options: { marginMs: number; fullEveryMs?: number }) =>
    new WorkerFleet(
      new ScalingRepository(db, { clock, fullEveryMs: 60_000, ...options }),
      new PlacementService(new CapacityRepository(db)),
    );

  const createEndpoint = async (name: string) =>
    (
      await db.endpoint.create({
        data: { id: newId(), accountId, name, templateId, workersMin: 0, workersMax: 2 },
      })
    ).id;

  const byId = async (snapshot: ReturnType<WorkerFleet['snapshot']>, id: string) =>
    (await snapshot).endpoints.find((endpoint) => endpoint.id === id);

  beforeAll(async () => {
    stores = await createTestStores('sched-fleet-changes');
    ({ db } = stores);
    accountId = (await createAccountsServices(db).accounts.create({ name: 'fleet-changes' })).id;
    templateId = (
      await db.template.create({
        data: { id: newId(), accountId, name: 'echo', imageName: 'runplane/echo:1', isServerless: true },
      })
    ).id;
  });

  afterAll(async () => {
    await stores.close();
  });

  it('sees endpoints edited, added and deleted, and template edits, on the next pass', async () => {
    const first = await createEndpoint('first');
    const second = await createEndpoint('second');
    const workers = fleet({ marginMs: 0 });
    expect((await workers.snapshot()).endpoints.map((endpoint) => endpoint.id)).toEqual([first, second]);

    await db.endpoint.update({ where: { id: first }, data: { workersMax: 7, idleTimeout: 30 } });
    expect(await byId(workers.snapshot(), first)).toMatchObject({ workersMax: 7, idleTimeout: 30 });

    await db.template.update({ where: { id: templateId }, data: { imageName: 'runplane/echo:2' } });
    expect((await byId(workers.snapshot(), second))?.template.imageName).toBe('runplane/echo:2');

    // A template edit bumps its endpoints' version with updateMany, which stamps updatedAt as update does.
    await db.endpoint.updateMany({ where: { templateId }, data: { version: { increment: 1 } } });
    expect(await byId(workers.snapshot(), second)).toMatchObject({ version: 1 });

    await db.endpoint.delete({ where: { id: first } });
    expect((await workers.snapshot()).endpoints.map((endpoint) => endpoint.id)).toEqual([second]);

    const third = await createEndpoint('third');
    expect((await workers.snapshot()).endpoints.map((endpoint) => endpoint.id)).toEqual([second, third]);

    // One deleted and one added between two passes: the count alone stays the same.
    await db.endpoint.delete({ where: { id: second } });
    const fourth = await createEndpoint('fourth');
    expect((await workers.snapshot()).endpoints.map((endpoint) => endpoint.id)).toEqual([third, fourth]);
  });

  it('sees workers added and removed on the next pass', async () => {
    const endpointId = await createEndpoint('with-workers');
    const workers = fleet({ marginMs: 0 });
    const ids = async () => (await workers.snapshot()).workers.filter((row) => row.endpointId === endpointId);
    expect(await ids()).toEqual([]);
    const workerId = newId();
    await db.pod.create({
      data: { id: workerId, accountId, name: 'w', endpointId, image: 'runplane/echo:1', desiredStatus: 'RUNNING' },
    });
    expect((await ids()).map((row) => row.id)).toEqual([workerId]);
    await db.pod.delete({ where: { id: workerId } });
    expect(await ids()).toEqual([]);
  });

  it('sees a write stamped before the previous read within the margin, else at the next full read', async () => {
    const endpointId = await createEndpoint('late');
    const withMargin = fleet({ marginMs: 5_000 });
    const noMargin = fleet({ marginMs: 0, fullEveryMs: 60_000 });
    await withMargin.snapshot();
    await noMargin.snapshot();
    // A transaction that stamped its row a second before the reads but committed after them.
    const stamped = new Date(Date.now() - 1_000);
    await db.endpoint.update({ where: { id: endpointId }, data: { scalerValue: 9, updatedAt: stamped } });
    expect((await byId(withMargin.snapshot(), endpointId))?.scalerValue).toBe(9);
    expect((await byId(noMargin.snapshot(), endpointId))?.scalerValue).not.toBe(9);
    skewMs = 60_000;
    expect((await byId(noMargin.snapshot(), endpointId))?.scalerValue).toBe(9);
  });
});
