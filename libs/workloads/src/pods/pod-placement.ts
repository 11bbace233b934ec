import type { PlacementRpcRequest } from '@runplane/contracts';

/** The scheduler's answer: where the Pod goes (machine null when no scheduler books machines), or why it cannot. */
export type PodPlacementReply =
  | {
      placed: true;
      machineId: string | null;
      gpuTypeId: string | null;
      cpuFlavorId: string | null;
      dataCenterId: string | null;
    }
  | { placed: false; message: string };

/**
 * Asks for a placement that reserves capacity for a Pod id before its row is written. The gateway's implementation
 * calls the scheduler over the placement RPC; {@link unbookedPlacement} serves setups without a scheduler.
 */
export interface PodPlacementClient {
  reserve(request: PlacementRpcRequest): Promise<PodPlacementReply>;
}

/**
 * Placement without capacity: the first candidate GPU type or CPU flavor, the volume's data center or the first
 * allowed one, no machine. For tests of the API that are not about capacity (no scheduler runs there).
 */
export const unbookedPlacement: PodPlacementClient = {
  reserve(request) {
    const gpuTypeId = request.computeType === 'GPU' ? (request.gpuTypeIds[0] ?? null) : null;
    const cpuFlavorId = request.computeType === 'CPU' ? (request.cpuFlavorIds[0] ?? null) : null;
    if (gpuTypeId === null && cpuFlavorId === null)
      return Promise.resolve({ placed: false, message: 'No candidate GPU type or CPU flavor' });
    const dataCenterId = request.volumeDataCenterId ?? request.dataCenterIds[0] ?? null;
    return Promise.resolve({ placed: true, machineId: null, gpuTypeId, cpuFlavorId, dataCenterId });
  },
};
