// The Pods curve's account: the catalog, one account with an ALL key, a template with env and ports, a network
// volume, and Pods inserted in bulk shaped as the create path stores them (placed on a machine, running, ports
// published, template env copied onto the row, the volume attached).
import { createAccountsServices } from '@runplane/accounts';
import { DATA_CENTER_IDS, GPU_TYPE_IDS, seedCatalog } from '@runplane/catalog';
import { type DbClient, newId, type Prisma } from '@runplane/db';

const BATCH = 1000;
/** Pods per machine (an 8-GPU node running one-GPU Pods). */
const PODS_PER_MACHINE = 8;
const ENV = { JUPYTER_PASSWORD: 'bench', HF_HOME: '/workspace/hf', PUBLIC_KEY: 'ssh-ed25519 AAAAC3Nza bench@runplane' };
const PORTS = ['8888/http', '22/tcp'];
/** Pod i was created at EPOCH + i ms: a distinct, increasing creation time per Pod. */
const EPOCH = Date.now() - 86_400_000;

/** The seeded account: its key, and what each Pod refers to. */
export interface PodsAccount {
  secret: string;
  accountId: string;
  templateId: string;
  networkVolumeId: string;
  dataCenterId: string;
  gpuTypeId: string;
}

/** Seeds the catalog and the bench account. */
export async function seedAccount(db: DbClient): Promise<PodsAccount> {
  await seedCatalog(db);
  const { accounts, apiKeys } = createAccountsServices(db);
  const account = await accounts.create({ name: 'bench-pods' });
  const { secret } = await apiKeys.create(account.id, { name: 'bench', scope: 'ALL' });
  const accountId = account.id;
  const dataCenterId = DATA_CENTER_IDS[0] ?? 'EU-RO-1';
  const gpuTypeId = GPU_TYPE_IDS[0] ?? 'NVIDIA GeForce RTX 4090';
  const template = await db.template.create({
    data: { id: newId(), accountId, name: 'bench-pod', imageName: 'runpod/pytorch:2.4.0', ports: PORTS, env: ENV },
  });
  const volume = await db.networkVolume.create({
    data: { id: newId(), accountId, name: 'bench-volume', size: 100, dataCenterId },
  });
  return { secret, accountId, templateId: template.id, networkVolumeId: volume.id, dataCenterId, gpuTypeId };
}

async function seedMachines(db: DbClient, account: PodsAccount, count: number): Promise<string[]> {
  const machines = Array.from({ length: count }, (_, i) => ({
    id: newId(),
    name: `bench-node-${newId(8)}-${i}`,
    gpuTypeId: account.gpuTypeId,
    gpuCount: PODS_PER_MACHINE,
    gpuAvailable: 0,
    cpuCount: 64,
    memoryInGb: 512,
    dataCenterId: account.dataCenterId,
    location: account.dataCenterId,
    ready: true,
    costPerHr: '5.52',
    currentPricePerGpu: '0.69',
  }));
  await db.machine.createMany({ data: machines });
  return machines.map((machine) => machine.id);
}

function podRow(account: PodsAccount, machineId: string, index: number, at: Date): Prisma.PodCreateManyInput {
  return {
    id: newId(),
    accountId: account.accountId,
    name: `bench-pod-${index}`,
    image: 'runpod/pytorch:2.4.0',
    templateId: account.templateId,
    gpuTypeIds: [account.gpuTypeId],
    dataCenterIds: [account.dataCenterId],
    allowedCudaVersions: ['12.4'],
    gpuTypeId: account.gpuTypeId,
    gpuCount: 1,
    vcpuCount: 8,
    memoryInGb: 62,
    dataCenterId: account.dataCenterId,
    machineId,
    costPerHr: '0.69',
    adjustedCostPerHr: '0.69',
    containerDiskInGb: 50,
    volumeInGb: 0,
    networkVolumeId: account.networkVolumeId,
    ports: PORTS,
    env: ENV,
    publicIp: '203.0.113.10',
    portMappings: { '22': 20000 + (index % 10000) },
    lastStartedAt: at,
    lastStatusChange: `Rented by User: ${at.toUTCString()}`,
    lastStatusChangeAt: at,
    observedPhase: 'RUNNING',
    observedAt: at,
    kubeNamespace: 'runplane-pods',
    kubeName: `pod-${index}-${newId(6)}`,
    createdAt: at,
  };
}

/** Adds Pods until the account has `total` (it has `existing`), one millisecond of creation time apart. */
export async function seedPods(db: DbClient, account: PodsAccount, existing: number, total: number): Promise<void> {
  const machines = await seedMachines(db, account, Math.ceil((total - existing) / PODS_PER_MACHINE));
  for (let done = existing; done < total; done += BATCH) {
    const data = Array.from({ length: Math.min(BATCH, total - done) }, (_, i) => {
      const index = done + i;
      const machineId = machines[Math.floor((index - existing) / PODS_PER_MACHINE)] ?? null;
      return podRow(account, machineId ?? '', index, new Date(EPOCH + index));
    });
    await db.pod.createMany({ data });
  }
  // The planner's statistics as autovacuum keeps them on a live database (after a bulk insert it lags by a minute or
  // so): without them Postgres guesses a handful of rows and sorts the account's Pods instead of walking the index.
  await db.$executeRaw`ANALYZE pods`;
}
