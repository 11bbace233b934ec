// Test workers for the OpenAI-compatible route: one behaves like RunPod's worker-vllm (a generator handler that
// yields the OpenAI JSON once, or raw SSE text when asked to stream), one is a plain handler returning a dict.
import type { Server } from 'node:http';
import type { HandlerContext, JobHandler, WorkerJob } from '@runplane/worker-sdk';

/** What the platform hands a worker for `/openai/v1/<path>`. */
export interface OpenAiJobInput {
  openai_route: string;
  openai_input?: { model?: string; stream?: boolean; messages?: { role: string; content: string }[] };
}

/** Models with a behaviour of their own in the vLLM-like worker. */
export const MODELS = {
  echo: 'echo-1',
  /** Yields worker-vllm's error object: the job fails with it. */
  broken: 'broken',
  /** Streams one word, then the handler throws. */
  failsMidway: 'fails-midway',
  /** Streams one word, then waits for `releaseGate(jobId)` before the rest. */
  gated: 'gated',
} as const;

const CREATED = 1_700_000_000;

function lastUserText(input: OpenAiJobInput['openai_input']): string {
  const messages = input?.messages ?? [];
  return messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
}

/** A non-stream chat completion answering `content`. */
export function chatCompletion(model: string, content: string): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** One chat completion chunk as the vLLM server writes it: an SSE `data:` line. */
function chunkEvent(model: string, delta: Record<string, unknown>, finish: string | null): string {
  const chunk = {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The model list the vLLM-like worker serves on /v1/models. */
export const MODEL_LIST = {
  object: 'list',
  data: [{ id: MODELS.echo, object: 'model', created: CREATED, owned_by: 'runplane' }],
};

/** A vLLM-like worker; records each job's input and holds gated streams until released. */
export class FakeVllm {
  readonly inputs = new Map<string, OpenAiJobInput>();
  private readonly gates = new Map<string, () => void>();
  private readonly waiting = new Set<string>();

  readonly handler: JobHandler = (job: WorkerJob, context: HandlerContext) => this.run(job, context);

  /** True once a gated job streamed its first word and waits. */
  isWaiting(jobId: string): boolean {
    return this.waiting.has(jobId);
  }

  releaseGate(jobId: string): void {
    this.gates.get(jobId)?.();
  }

  private async *run(job: WorkerJob, context: HandlerContext): AsyncGenerator<unknown> {
    const input = job.input as unknown as OpenAiJobInput;
    this.inputs.set(job.id, input);
    if (input.openai_route.startsWith('/v1/models')) {
      yield MODEL_LIST;
      return;
    }
    const body = input.openai_input;
    const model = body?.model ?? MODELS.echo;
    if (model === MODELS.broken) {
      yield { error: { message: 'model broken', type: 'worker_error', code: null } };
      return;
    }
    const words = lastUserText(body).split(' ');
    if (body?.stream !== true) {
      yield chatCompletion(model, words.join(' '));
      return;
    }
    yield chunkEvent(model, { role: 'assistant', content: '' }, null);
    for (const [index, word] of words.entries()) {
      if (index === 1 && model === MODELS.failsMidway) throw new Error('GPU fell off the bus');
      if (index === 1 && model === MODELS.gated) await this.gate(job.id, context.signal);
      yield chunkEvent(model, { content: index === 0 ? word : ` ${word}` }, null);
    }
    // The last batch carries two SSE events in one yield, as worker-vllm's batching does.
    yield chunkEvent(model, {}, 'stop') + 'data: [DONE]\n\n';
  }

  private gate(jobId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      this.gates.set(jobId, resolve);
      this.waiting.add(jobId);
      signal.addEventListener('abort', () => resolve());
    });
  }
}

/** A plain (non-generator) handler: answers every request with one chat completion dict. */
export const plainHandler: JobHandler = (job) => {
  const input = job.input as unknown as OpenAiJobInput;
  return chatCompletion('plain-1', `plain answer to ${input.openai_route}`);
};

/**
 * Stops a listening test server at once: no new connections, and every open one dropped. An aborted fetch can leave
 * a connection on which no request ever arrives; Node counts it as busy until its headers timeout (60 s), so a plain
 * close would wait that long.
 */
export function dropConnections(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
