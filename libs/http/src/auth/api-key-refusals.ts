import { UnauthorizedError } from '@runplane/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_KEY_ROUTE, type ApiKeyAuthenticator, extractApiKey, setRequestPrincipal } from './api-key.guard';

/** Answers a refusal (or an unexpected failure) in the shape of the API the request is on. */
export type RefusalWriter = (error: unknown, target: { request: FastifyRequest; reply: FastifyReply }) => void;

// Built once: a refusal carries nothing of its request, and a stack trace per wrong key would be most of its cost.
const MISSING_KEY = new UnauthorizedError('Missing API key');
const INVALID_KEY = new UnauthorizedError('Invalid API key');

function isApiKeyRoute(request: FastifyRequest): boolean {
  return (request.routeOptions.config as Partial<Record<typeof API_KEY_ROUTE, boolean>>)[API_KEY_ROUTE] === true;
}

/**
 * Authenticates the key of every @Authenticated() route in a Fastify preHandler hook, before Nest's router runs: a
 * missing, unknown or disabled key is answered 401 there with `answer`, so a flood of wrong keys costs no more than a
 * health probe (an unknown key's hash is remembered, see AuthCache). A known key's principal stays on the request,
 * where ApiKeyGuard applies the route's scope to it. The hook runs after the body is parsed, as the guard did, so
 * which error a request with both a bad body and a bad key gets is unchanged.
 */
export function refuseKeysEarly(
  fastify: FastifyInstance,
  authenticator: ApiKeyAuthenticator,
  answer: RefusalWriter,
): void {
  fastify.addHook('preHandler', (request, reply, done) => {
    if (!isApiKeyRoute(request)) {
      done();
      return;
    }
    const secret = extractApiKey(request.headers.authorization);
    if (!secret) {
      answer(MISSING_KEY, { request, reply });
      return;
    }
    authenticator.authenticate(secret).then(
      (principal) => {
        if (!principal) {
          answer(INVALID_KEY, { request, reply });
          return;
        }
        setRequestPrincipal(request, principal);
        done();
      },
      (error: unknown) => answer(error, { request, reply }),
    );
  });
}
