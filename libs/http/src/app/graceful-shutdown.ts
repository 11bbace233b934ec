import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from '@runplane/observability';
import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Default of SHUTDOWN_DELAY_MS: none, for a service nothing balances traffic to. Behind a load balancer (a
 * Kubernetes Service) a few seconds let it see /readyz answer 503 and stop sending before the listener closes.
 */
export const SHUTDOWN_DELAY_MS_DEFAULT = 0;

/** Signals that stop a service gracefully (Kubernetes and `npm start` send SIGTERM; a terminal SIGINT or SIGHUP). */
const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

interface ShutdownState {
  draining: boolean;
  closing: AbortController;
  /** Aborted with `closing`. A set costs a long poll less than a listener on the closing signal. */
  longPolls: Set<AbortController>;
}

// Keyed by the Node server, which every Fastify context (root or plugin) of one app shares.
const states = new WeakMap<Server, ShutdownState>();

function stateOf(server: Server): ShutdownState {
  let state = states.get(server);
  if (!state) {
    state = { draining: false, closing: new AbortController(), longPolls: new Set() };
    states.set(server, state);
  }
  return state;
}

/**
 * Aborts once the app's HTTP server starts closing: a long poll (a worker's parked take) then answers at once, as
 * if its wait had run out, instead of holding the shutdown or being cut off without an answer.
 */
export function closingSignal(server: Server): AbortSignal {
  return stateOf(server).closing.signal;
}

/**
 * Aborts `controller` when the app's HTTP server starts closing (at once when it already has), until `release` is
 * called: a long poll's own controller, held only while the poll is.
 */
export function abortOnClosing(server: Server, controller: AbortController): { release(): void } {
  const state = stateOf(server);
  if (state.closing.signal.aborted) controller.abort();
  else state.longPolls.add(controller);
  return { release: () => state.longPolls.delete(controller) };
}

/**
 * While the app drains, /readyz answers 503 and every answer closes its connection (`Connection: close`), so a client
 * or proxy holding kept-alive connections reconnects, through its load balancer, to a replica that stays; the closing
 * signal aborts when the server starts closing.
 */
export function trackDraining(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const state = stateOf(fastify.server);
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!state.draining) return done();
    void reply.header('connection', 'close');
    if (request.url.split('?')[0] !== '/readyz') return done();
    void reply.code(503).send({ status: 'draining', checks: {} });
  });
  fastify.addHook('preClose', (done) => {
    state.draining = true;
    state.closing.abort();
    for (const poll of state.longPolls) poll.abort();
    state.longPolls.clear();
    done();
  });
}

/**
 * The shutdown a signal starts: /readyz answers 503 at once while everything else is served on for `delayMs` (a load
 * balancer polling readiness takes the replica out of rotation meanwhile), then the listener closes and the requests
 * in flight are answered (long polls at once), and only then the app's hooks close the engine, Redis and PostgreSQL,
 * so no request in flight meets a closed client. The process then exits 0.
 */
async function drainAndExit(
  app: NestFastifyApplication,
  delayMs: number,
  logger: Logger,
  signal: string,
): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  stateOf(fastify.server).draining = true;
  logger.info({ signal, delayMs }, 'shutting down: not ready, serving on until the delay ends');
  try {
    await delay(delayMs);
    await fastify.close();
    await app.close();
    logger.info('shut down');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
}

/** Shuts the app down gracefully on SIGTERM, SIGINT or SIGHUP; the handlers go when the app closes otherwise. */
export function shutdownOnSignals(app: NestFastifyApplication, delayMs: number, logger: Logger): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (started) return;
    started = true;
    void drainAndExit(app, delayMs, logger, signal);
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, onSignal);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onClose', (_instance, done) => {
      // During a shutdown a signal started they stay, so a second signal does not kill the process mid-drain.
      if (!started) for (const signal of SHUTDOWN_SIGNALS) process.off(signal, onSignal);
      done();
    });
}
