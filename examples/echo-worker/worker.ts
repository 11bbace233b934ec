// An echo worker for Runplane (or RunPod) serverless endpoints, built on @runplane/worker-sdk.
// It reads RunPod's worker environment (see README.md) and stops taking jobs on SIGTERM / SIGINT.
import { runWorker, type HandlerContext, type WorkerJob } from '@runplane/worker-sdk';

interface EchoInput {
  /** Echoed back; with `stream: true` it is streamed word by word. */
  text?: string;
  stream?: boolean;
  /** Holds the job this long (ms) before answering, reporting progress; a stop request ends it early. */
  sleepMs?: number;
  /** Fails the job with this message. */
  fail?: string;
}

function hold(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

async function* streamWords(text: string): AsyncGenerator<string> {
  for (const word of text.split(/\s+/).filter(Boolean)) yield word;
}

function echo(job: WorkerJob, context: HandlerContext): Promise<unknown> | AsyncGenerator<string> {
  const input = job.input as EchoInput;
  if (input.stream === true) return streamWords(input.text ?? '');
  return (async () => {
    if (input.fail) return { error: input.fail };
    if (input.sleepMs) {
      await context.progress({ status: 'sleeping', ms: input.sleepMs });
      await hold(input.sleepMs, context.signal);
    }
    return { echo: job.input, workerId: context.workerId };
  })();
}

const shutdown = new AbortController();
process.once('SIGTERM', () => shutdown.abort());
process.once('SIGINT', () => shutdown.abort());

runWorker({ handler: echo, concurrency: Number(process.env.ECHO_CONCURRENCY ?? 1), signal: shutdown.signal }).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
