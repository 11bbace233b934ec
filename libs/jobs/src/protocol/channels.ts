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

/** Between the wake channel and a replica's origin in that replica's own hand-off channel. */
const HAND_OFF_CHANNEL_SEPARATOR = ':';

/**
 * The channel a replica (its Wakeups' `origin`) hears the hand-offs to its own takes on, beside the shared wake
 * channel: a hand-off carries a whole job, and goes to its take's replica alone. A replica of an earlier release does
 * not hear its own channel: a hand-off to its take is published on the shared channel (see LUA_HAND_OFF).
 */
export function handOffChannel(wakeChannel: string, origin: string): string {
  return `${wakeChannel}${HAND_OFF_CHANNEL_SEPARATOR}${origin}`;
}

/**
 * Lua `publishHandOff(origin, message)`: publishes a hand-off on its take's replica's own channel
 * ({@link handOffChannel}) when that replica subscribes to it, else (a replica of an earlier release) on the shared
 * wake channel (`wake`, defined by the script's prelude before it). It asks Redis who subscribes to the channel rather
 * than counting who heard the message: a pattern subscription (a `redis-cli psubscribe` while the release rolls) must
 * not count.
 */
export const LUA_HAND_OFF = `
local function publishHandOff(origin, message)
  local own = gkey('wake') .. '${HAND_OFF_CHANNEL_SEPARATOR}' .. origin
  if redis.call('PUBSUB', 'NUMSUB', own)[2] > 0 then redis.call('PUBLISH', own, message) else wake(message) end
end
`;
