import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_KEY_ROUTE, type ApiKeyAuthenticator, authenticateApiKey, setRequestPrincipal } from './api-key.guard';

/** Answers a refusal (or an unexpected failure) in the shape of the API the request is on. */
export type RefusalWriter = (error: unknown, target: { request: FastifyRequest; reply: FastifyReply }) => void;

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
    authenticateApiKey(authenticator, request.headers.authorization).then(
      (principal) => {
        setRequestPrincipal(request, principal);
        done();
      },
      (error: unknown) => answer(error, { request, reply }),
    );
  });
}
