import { newId } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import { EndpointsRepository } from './endpoints.repository';

const at = (ms: number): Date => new Date(Date.UTC(2026, 11, 1, 12, 0, 0, ms));
const TEMPLATE = { select: { accountId: true, isPublic: true, isRunpod: true, env: true } } as const;

describe('EndpointsRepository reads on a live database', () => {
  let stores: TestStores;
  let endpoints: EndpointsRepository;
  let accountId: string;
  let ids: string[];

  beforeAll(async () => {
    stores = await createTestStores('endpoints-repository');
    endpoints = new EndpointsRepository(stores.db);
    accountId = (await stores.db.account.create({ data: { id: newId(), name: 'endpoints' } })).id;
    const template = await stores.db.template.create({
      data: { id: newId(), accountId, name: 't', imageName: 'img:t', isServerless: true, env: { A: 'b' } },
    });
    // Recorded out of order, two of them in the same millisecond: listings order by creation time, then id.
    const createdAt = [at(5), at(1), at(3), at(3), at(9)];
    ids = [];
    for (const [i, when] of createdAt.entries()) {
      const data = { id: newId(), accountId, name: `ep-${i}`, templateId: template.id, createdAt: when };
      ids.push((await stores.db.endpoint.create({ data })).id);
    }
  });

  afterAll(async () => {
    await stores?.close();
  });

  /** The same listing through Prisma's include, for comparison. */
  const throughInclude = () =>
    stores.db.endpoint.findMany({
      where: { accountId },
      include: { template: TEMPLATE },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });

  it('lists the account endpoints with their templates, oldest first, as Prisma maps them', async () => {
    const listed = await endpoints.listByAccount(accountId);
    expect(listed).toEqual(await throughInclude());
    expect(listed).toHaveLength(5);
    expect(listed[0]).toMatchObject({ id: ids[1], createdAt: at(1), template: { accountId, env: { A: 'b' } } });
  });

  it('pages after a position, past endpoints created in the same millisecond', async () => {
    const all = await throughInclude();
    const pages = [];
    let after: { createdAt: Date; id: string } | undefined;
    for (;;) {
      const page = await endpoints.pageByAccount(accountId, after, 2);
      if (page.length === 0) break;
      pages.push(page.map((endpoint) => endpoint.id));
      const last = page[page.length - 1];
      after = last && { createdAt: last.createdAt, id: last.id };
    }
    expect(pages.flat()).toEqual(all.map((endpoint) => endpoint.id));
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
  });

  it('reads one endpoint with its template, and nothing of another account', async () => {
    const [first] = await throughInclude();
    expect(await endpoints.findShown(accountId, first?.id ?? '')).toEqual(first);
    const other = (await stores.db.account.create({ data: { id: newId(), name: 'other' } })).id;
    expect(await endpoints.findShown(other, first?.id ?? '')).toBeNull();
    expect(await endpoints.listByAccount(other)).toEqual([]);
  });
});
