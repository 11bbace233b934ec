import { activeTraceparent, withinTrace, withSpan } from '@runplane/observability';
import { isRefusedReply, refusalOf, SubmissionRefused } from './admission';
import type { EngineConnections } from './connections';
import { HAND_OFF_MAX_CHARS, type JobDispatcher } from './dispatch';
import type { JobSubmission } from './engine';
import { SCRIPTS } from './engine-scripts';
import { newRecordFields } from './job-store';
import type { JobKeys } from './protocol';

/** What recording a submitted job works with: the engine's connections, keys and dispatcher. */
export interface SubmissionParts extends Pick<EngineConnections, 'queueFree'> {
  keys: JobKeys;
  dispatcher: JobDispatcher;
}

/** A job accepted by `submit`, with its new id and the submission time (engine clock). */
export interface NewJob {
  job: JobSubmission;
  id: string;
  now: number;
}

/**
 * Records a submitted job (the SUBMIT script) and dispatches it, in one round trip; with the job's admission, counted
 * in that same script first (a refusal throws SubmissionRefused, nothing recorded). With a take parked on this
 * replica, the same script claims the job for it. Otherwise the record's script hands the job to a take another replica
 * registered, or else announces it to the other replicas' takers, which claim it by id, and wakes this replica's own
 * once it is recorded.
 */
export function recordAndDispatch(parts: SubmissionParts, submission: NewJob): Promise<void> {
  const attributes = { 'runplane.endpoint_id': submission.job.endpointId, 'runplane.job_id': submission.id };
  // The job's trace: the record keeps this span's context, and the take, job-done, stream, webhook and usage spans
  // continue it (the submitting request's trace, or the one `traceparent` names).
  return withinTrace(submission.job.traceparent, () =>
    withSpan('job.submit', () => recordInSpan(parts, submission), attributes, 'producer'),
  );
}

async function recordInSpan(parts: SubmissionParts, { job, id, now }: NewJob): Promise<void> {
  const { endpointId } = job;
  const { keys, dispatcher } = parts;
  const traceparent = activeTraceparent();
  const record = newRecordFields(traceparent ? { ...job, traceparent } : job, now);
  const taker = dispatcher.reserve(endpointId);
  const submitted = {
    base: keys.base,
    endpointId,
    jobId: id,
    now,
    ttlAt: record.ttlAt,
    lowPriority: job.policy.lowPriority,
    announce: taker ? '' : dispatcher.announcement(endpointId, id),
    handOff: !taker && record.handOffChars <= HAND_OFF_MAX_CHARS,
    claimFor: taker?.tag,
    admission: job.admission,
    fields: record.fields,
  };
  const recorded = SCRIPTS.submit.run(parts.queueFree, submitted);
  await dispatcher.dispatchSubmitted(endpointId, id, taker, recorded);
  const reply = await recorded;
  if (isRefusedReply(reply)) throw new SubmissionRefused(refusalOf(reply));
}
