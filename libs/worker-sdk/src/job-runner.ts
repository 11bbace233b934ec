import type { HandlerContext, JobHandler, WorkerJob } from './types';
import type { ProtocolTransport } from './transport';
import { exceptionBody, isAsyncIterable, resultBody, streamErrorBody, yieldedError } from './results';

/** One job in flight: its stop switch, and whether the platform asked for the stop (then no result is sent). */
export interface RunningJob {
  controller: AbortController;
  stopRequested: boolean;
  finished: boolean;
}

/** Runs one job through the handler and reports it over the protocol, as RunPod's worker SDK does. */
export class JobRunner {
  constructor(
    private readonly transport: ProtocolTransport,
    private readonly handler: JobHandler,
    private readonly workerId: string,
    private readonly returnAggregateStream: boolean,
  ) {}

  /** Never rejects: handler failures become job-done errors, protocol failures are logged by the transport. */
  async run(job: WorkerJob, state: RunningJob): Promise<void> {
    const context: HandlerContext = {
      signal: state.controller.signal,
      workerId: this.workerId,
      progress: async (update) => {
        if (state.finished || state.stopRequested) return;
        await this.transport.done(job.id, { status: 'IN_PROGRESS', output: update }, false);
      },
    };
    try {
      let result = this.handler(job, context);
      if (!isAsyncIterable(result)) result = await result;
      if (isAsyncIterable(result)) return await this.stream(job, result, state);
      state.finished = true;
      if (!state.stopRequested) await this.transport.done(job.id, resultBody(result), false);
    } catch (error) {
      state.finished = true;
      if (!state.stopRequested) await this.transport.done(job.id, exceptionBody(error, this.workerId), false);
    }
  }

  private async stream(job: WorkerJob, chunks: AsyncIterable<unknown>, state: RunningJob): Promise<void> {
    const sent: unknown[] = [];
    try {
      for await (const chunk of chunks) {
        if (state.stopRequested) break;
        const error = yieldedError(chunk);
        if (error !== undefined) {
          state.finished = true;
          await this.transport.done(job.id, { error }, true);
          return;
        }
        await this.transport.streamChunk(job.id, chunk);
        if (this.returnAggregateStream) sent.push(chunk);
      }
    } catch (error) {
      state.finished = true;
      if (!state.stopRequested) await this.transport.done(job.id, streamErrorBody(error), true);
      return;
    }
    state.finished = true;
    if (!state.stopRequested) await this.transport.done(job.id, { output: sent }, true);
  }
}
