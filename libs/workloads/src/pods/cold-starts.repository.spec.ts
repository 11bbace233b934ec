import { newId } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import { ColdStartsRepository } from './cold-starts.repository';

const at = (seconds: number): Date => new Date(Date.UTC(2026, 10, 25, 6, 0, seconds));

describe('ColdStartsRepository on a live database', () => {
  let stores: TestStores;
  let repository: ColdStartsRepository;
  let accountId: string;

  beforeAll(async () => {
    stores = await createTestStores('cold-starts-repository');
    repository = new ColdStartsRepository(stores.db);
    accountId = (await stores.db.account.create({ data: { id: newId(), name: 'cold starts' } })).id;
  });

  afterAll(async () => {
    await stores?.close();
  });

  const createPod = async (coldStart?: Record<string, string>): Promise<string> =>
    (await stores.db.pod.create({ data: { id: newId(), accountId, image: 'w', ...(coldStart ? { coldStart } : {}) } }))
      .id;

  it('adds the phases of many rows in one statement, keeping each phase a row already holds', async () => {
    const fresh = await createPod();
    const started = await createPod({ placed: at(1).toISOString() });
    const gone = newId();
    await repository.recordMany([
      { podId: fresh, phases: { placed: at(2) } },
      { podId: started, phases: { placed: at(9), scheduled: at(3) } },
      { podId: gone, phases: { placed: at(4) } },
      // Given twice in one batch: merged, the first given phase kept.
      { podId: fresh, phases: { placed: at(8), scheduled: at(5) } },
    ]);
    const rows = await repository.readMany([fresh, started, gone]);
    expect(rows.get(fresh)?.phases).toEqual({ placed: at(2).toISOString(), scheduled: at(5).toISOString() });
    expect(rows.get(started)?.phases).toEqual({ placed: at(1).toISOString(), scheduled: at(3).toISOString() });
    expect(rows.has(gone)).toBe(false);
    await expect(repository.recordMany([])).resolves.toBeUndefined();
  });
});
