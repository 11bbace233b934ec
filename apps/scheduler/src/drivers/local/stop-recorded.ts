import { isWorkloadAlive, terminateWorkload } from './process-group';
import { ProcessRecords } from './process-records';

/** Why a record was closed by stopRecordedWorkloads (the reconciler starts such a workload again when wanted). */
export const STOPPED_WITH_PLATFORM = 'Stopped with the platform';

/**
 * Stops every workload process recorded under `stateDir` that is still alive (SIGTERM to its group, SIGKILL after
 * `graceMs`) and marks its record EXITED; returns the Pod ids stopped. For the platform runner, with no scheduler
 * running on `stateDir`: when it stops the platform, so workloads do not outlive it, and when it starts, for
 * workloads a killed runner left behind. A scheduler restarted on its own still adopts its running processes.
 */
export async function stopRecordedWorkloads(stateDir: string, graceMs: number): Promise<string[]> {
  const records = new ProcessRecords(stateDir);
  const running = records
    .all()
    .filter((record) => record.phase === 'RUNNING' && isWorkloadAlive(record.pid, record.podId));
  await Promise.all(
    running.map(async (record) => {
      await terminateWorkload(record.pid, record.podId, graceMs);
      records.write({
        ...record,
        phase: 'EXITED',
        finishedAt: new Date().toISOString(),
        reason: STOPPED_WITH_PLATFORM,
      });
    }),
  );
  return running.map((record) => record.podId);
}
