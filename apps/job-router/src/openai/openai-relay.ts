import { Logger } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import { type JobRecord, type StreamRead, TERMINAL_STATUSES } from '@runplane/jobs';
import type { JobApiService } from '../client/job-api.service';
import {
  completedBody,
  completedEvents,
  doneEvent,
  errorEvent,
  isEmptyOutput,
  jobErrorBody,
  jobErrorStatus,
  sseText,
} from './openai-answer';
import type { OpenAiCall } from './openai-request';

/** How long one wait on the job is held; the relay then waits again, so only the job's own policy bounds the wait. */
export const OPENAI_HOLD_MS = 30_000;

/** What the route answers: one JSON body, server-sent events, or nothing when the client has gone. */
export type OpenAiAnswer =
  | { kind: 'json'; status: 200 | 409 | 500; body: unknown; retry?: boolean }
  | { kind: 'events'; events: AsyncIterable<string> | Iterable<string> }
  | { kind: 'gone' };

function isTerminal(status: JobRecord['status']): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The work's result, or undefined as soon as the signal aborts (the work is left to settle unobserved). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      work.catch(() => undefined);
      resolve(undefined);
      return;
    }
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

const FOLLOW_FAILED = {
  error: { message: 'The job could not be followed to its end', type: 'server_error', code: null },
};

/**
 * Runs one OpenAI-compatible request as a job of the endpoint (RunPod's passthrough) and waits for it like /runsync.
 * A client that goes away abandons its job: the job is cancelled, as nobody else knows its id.
 */
export class OpenAiRelay {
  private readonly logger = new Logger('OpenAiRelay');

  constructor(
    private readonly jobs: JobApiService,
    private readonly holdMs: number = OPENAI_HOLD_MS,
  ) {}

  async answer(principal: Principal, endpointId: string, call: OpenAiCall, signal: AbortSignal): Promise<OpenAiAnswer> {
    const job = await this.jobs.submit(principal, endpointId, { input: call.input }, { sync: true });
    const target = { principal, endpointId, jobId: job.id };
    return call.stream ? this.events(target, signal) : this.json(target, signal);
  }

  /** Non-stream: the completed job's output as the body, else OpenAI's error object with 500 (409 if cancelled). */
  private async json(target: JobTarget, signal: AbortSignal): Promise<OpenAiAnswer> {
    let record: JobRecord | undefined;
    do {
      record = await unlessAborted(
        this.jobs.statusSync(target.principal, target.endpointId, target.jobId, this.holdMs),
        signal,
      );
      if (!record) return this.abandon(target);
    } while (!isTerminal(record.status));
    if (record.status !== 'COMPLETED') return { kind: 'json', ...jobErrorStatus(record), body: jobErrorBody(record) };
    // A generator worker that does not aggregate its yields leaves them in the stream only.
    const chunks = isEmptyOutput(record.output) ? await this.leftoverChunks(target) : [];
    return { kind: 'json', status: 200, body: completedBody(record.output, chunks) };
  }

  /**
   * Stream: the status line waits for the job's first chunk, so a job failing before it is a plain 500; after it,
   * chunks are relayed as they arrive and a failure becomes a last error event.
   */
  private async events(target: JobTarget, signal: AbortSignal): Promise<OpenAiAnswer> {
    let read: StreamRead | undefined;
    do {
      read = await unlessAborted(
        this.jobs.stream(target.principal, target.endpointId, target.jobId, this.holdMs),
        signal,
      );
      if (!read) return this.abandon(target);
    } while (read.stream.length === 0 && !isTerminal(read.status));
    if (read.stream.length > 0) return { kind: 'events', events: this.follow(target, read, signal) };
    const record = await this.jobs.status(target.principal, target.endpointId, target.jobId);
    if (record.status !== 'COMPLETED') return { kind: 'json', ...jobErrorStatus(record), body: jobErrorBody(record) };
    return { kind: 'events', events: completedEvents(record.output) };
  }

  private async *follow(target: JobTarget, first: StreamRead, signal: AbortSignal): AsyncGenerator<string> {
    let read = first;
    let jsonEvents = false;
    try {
      for (;;) {
        for (const chunk of read.stream) {
          const event = sseText(chunk.output);
          jsonEvents ||= !event.raw;
          yield event.text;
        }
        if (isTerminal(read.status)) break;
        const next = await unlessAborted(
          this.jobs.stream(target.principal, target.endpointId, target.jobId, this.holdMs),
          signal,
        );
        if (!next) {
          await this.abandon(target);
          return;
        }
        read = next;
      }
      if (read.status !== 'COMPLETED') {
        yield errorEvent(jobErrorBody(await this.jobs.status(target.principal, target.endpointId, target.jobId)));
      } else if (jsonEvents) {
        yield doneEvent();
      }
    } catch (error) {
      // The status line is sent: the client learns of the failure as OpenAI reports one mid-stream.
      this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error), `job ${target.jobId}`);
      yield errorEvent(FOLLOW_FAILED);
    }
  }

  private async leftoverChunks(target: JobTarget): Promise<unknown[]> {
    const read = await this.jobs.stream(target.principal, target.endpointId, target.jobId, 0);
    return read.stream.map((chunk) => chunk.output);
  }

  private async abandon(target: JobTarget): Promise<OpenAiAnswer> {
    await this.jobs.cancel(target.principal, target.endpointId, target.jobId).catch((error: unknown) => {
      this.logger.warn(
        `could not cancel abandoned job ${target.jobId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    return { kind: 'gone' };
  }
}

/** The job a relay follows, and on whose behalf. */
interface JobTarget {
  principal: Principal;
  endpointId: string;
  jobId: string;
}
