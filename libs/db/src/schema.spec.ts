import { createTestStores, type TestStores } from '@runplane/testing';
import { type DatabaseClient, isForeignKeyViolation, isUniqueViolation, newId } from '.';

// The constraints other services rely on: tenancy cascades, Restrict where deleting would break a
// workload, and the unique keys that make replays idempotent.
describe('data model constraints', () => {
  let stores: TestStores;
  let db: DatabaseClient;
  let accountId: string;

  beforeAll(async () => {
    stores = await createTestStores('schema');
    db = stores.db;
  });

  beforeEach(async () => {
    accountId = newId();
    await db.account.create({ data: { id: accountId, name: 'tenant' } });
  });

  afterAll(() => stores.close());

  async function template(name = 'tpl', registryAuthId?: string): Promise<string> {
    const id = newId();
    await db.template.create({
      data: { id, accountId, name, imageName: 'runplane/worker:1', containerRegistryAuthId: registryAuthId ?? null },
    });
    return id;
  }

  it('keeps template and registry auth names unique per account only', async () => {
    await template('same');
    expect(isUniqueViolation(await template('same').catch((e: unknown) => e))).toBe(true);
    const other = newId();
    await db.account.create({ data: { id: other, name: 'other' } });
    await db.template.create({ data: { id: newId(), accountId: other, name: 'same', imageName: 'x' } });
    const auth = { username: 'u', passwordEncrypted: 'v1:iv:tag:ct' };
    await db.containerRegistryAuth.create({ data: { id: newId(), accountId, name: 'hub', ...auth } });
    const dup = await db.containerRegistryAuth
      .create({ data: { id: newId(), accountId, name: 'hub', ...auth } })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(dup)).toBe(true);
  });

  it('refuses to delete a template or registry auth still in use, and stores wire defaults', async () => {
    const authId = newId();
    await db.containerRegistryAuth.create({
      data: { id: authId, accountId, name: 'hub', username: 'u', passwordEncrypted: 'x' },
    });
    const templateId = await template('tpl', authId);
    const endpoint = await db.endpoint.create({
      data: { id: newId(), accountId, name: 'ep', templateId, gpuTypeIds: ['NVIDIA L4'] },
    });
    expect(endpoint).toMatchObject({
      computeType: 'GPU',
      gpuCount: 1,
      idleTimeout: 5,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 4,
      workersMin: 0,
      version: 0,
      env: {},
    });

    expect(
      isForeignKeyViolation(await db.template.delete({ where: { id: templateId } }).catch((e: unknown) => e)),
    ).toBe(true);
    expect(
      isForeignKeyViolation(await db.containerRegistryAuth.delete({ where: { id: authId } }).catch((e: unknown) => e)),
    ).toBe(true);
  });

  it('deletes workers with their endpoint and detaches pods from a deleted template', async () => {
    const templateId = await template();
    const endpointId = newId();
    await db.endpoint.create({ data: { id: endpointId, accountId, name: 'ep', templateId } });
    const worker = await db.pod.create({
      data: { id: newId(), accountId, image: 'w', endpointId, gpuTypeId: 'NVIDIA L4', gpuCount: 1 },
    });
    expect(worker).toMatchObject({
      desiredStatus: 'RUNNING',
      observedPhase: 'PENDING',
      generation: 1,
      portMappings: null,
      volumeMountPath: '/workspace',
    });
    await db.endpoint.delete({ where: { id: endpointId } });
    expect(await db.pod.findUnique({ where: { id: worker.id } })).toBeNull();

    const pod = await db.pod.create({ data: { id: newId(), accountId, image: 'p', templateId } });
    await db.template.delete({ where: { id: templateId } });
    expect(await db.pod.findUnique({ where: { id: pod.id } })).toMatchObject({ templateId: null });
  });

  it('makes usage events, billing buckets and webhook deliveries idempotent', async () => {
    const interval = {
      accountId,
      resourceKind: 'WORKER' as const,
      resourceId: 'pod1',
      ratePerHr: 0.43,
      startedAt: new Date(),
    };
    await db.usageInterval.create({ data: { id: newId(), eventId: 'start:pod1:1', ...interval } });
    const replay = await db.usageInterval
      .create({ data: { id: newId(), eventId: 'start:pod1:1', ...interval } })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(replay)).toBe(true);

    const bucket = { accountId, kind: 'ENDPOINT' as const, time: new Date('2026-01-01T10:00:00Z'), endpointId: 'ep1' };
    const upsert = (amount: number) =>
      db.billingRecord.upsert({
        where: {
          bucket: {
            ...bucket,
            podId: '',
            gpuTypeId: '',
            networkVolumeId: '',
            templateId: '',
            imageName: '',
            dataCenterId: '',
          },
        },
        create: { id: newId(), ...bucket, amount, timeBilledMs: 3_000_000_000n },
        update: { amount },
      });
    await upsert(1.25);
    const second = await upsert(1.5);
    expect(await db.billingRecord.count({ where: { accountId } })).toBe(1);
    expect(second.amount.toString()).toBe('1.5');
    expect(second.timeBilledMs).toBe(3_000_000_000n);

    const delivery = {
      accountId,
      endpointId: 'ep1',
      jobId: 'job1',
      url: 'https://example.test/hook',
      sourceKey: 'job1-1',
    };
    await db.webhookDelivery.create({ data: { id: newId(), ...delivery } });
    expect(
      isUniqueViolation(
        await db.webhookDelivery.create({ data: { id: newId(), ...delivery } }).catch((e: unknown) => e),
      ),
    ).toBe(true);
  });

  it('removes every tenant row with the account', async () => {
    const templateId = await template();
    const authId = newId();
    await db.containerRegistryAuth.create({
      data: { id: authId, accountId, name: 'hub', username: 'u', passwordEncrypted: 'x' },
    });
    const volumeId = newId();
    await db.networkVolume.create({
      data: { id: volumeId, accountId, name: 'vol', size: 10, dataCenterId: 'EU-RO-1' },
    });
    await db.endpoint.create({ data: { id: newId(), accountId, name: 'ep', templateId, networkVolumeId: volumeId } });
    await db.pod.create({
      data: {
        id: newId(),
        accountId,
        image: 'p',
        templateId,
        networkVolumeId: volumeId,
        containerRegistryAuthId: authId,
      },
    });
    await db.apiKey.create({ data: { id: newId(), accountId, name: 'k', prefix: 'p', hash: newId(64) } });
    await db.account.delete({ where: { id: accountId } });
    const counts = await Promise.all([
      db.template.count({ where: { accountId } }),
      db.networkVolume.count({ where: { accountId } }),
      db.pod.count({ where: { accountId } }),
      db.apiKey.count({ where: { accountId } }),
    ]);
    expect(counts).toEqual([0, 0, 0, 0]);
  });
});
