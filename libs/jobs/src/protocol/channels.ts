import { encodeWake, WAKE_PREFIXES, type WakeMessage } from './wake-messages';

/**
 * Where callers of one replica park (the channels of `Wakeups`): the takes of an endpoint, the callers waiting for one
 * job (status-sync, stream), a worker's job-stop poll. A received {@link WakeMessage} wakes the channel
 * {@link channelOf} names.
 */
export const PARKING = {
  /** Takes of an endpoint (`t|<ep>`): one is woken per queued job. */
  takers: (endpointId: string): string => `${WAKE_PREFIXES.queued}|${endpointId}`,
  /** Callers waiting for a job to change. */
  job: (endpointId: string, jobId: string): string => encodeWake({ type: 'jobChanged', endpointId, jobId }),
  /** A worker's job-stop poll. */
  stops: (endpointId: string, workerId: string): string => encodeWake({ type: 'stopRequested', endpointId, workerId }),
};

/** True for a {@link PARKING.takers} channel, whose wakes go to one caller each (one job, one taker). */
export function isTakersChannel(channel: string): boolean {
  return channel.startsWith(`${WAKE_PREFIXES.queued}|`);
}

/** The channel a received message wakes (a hand-off wakes none: it is given to one reserved take). */
export function channelOf(message: WakeMessage): string | undefined {
  switch (message.type) {
    case 'queued':
      return PARKING.takers(message.endpointId);
    case 'jobChanged':
      return PARKING.job(message.endpointId, message.jobId);
    case 'stopRequested':
      return PARKING.stops(message.endpointId, message.workerId);
    case 'handOff':
      return undefined;
  }
}
