import { renderApiReference } from '@scalar/client-side-rendering';
import { createFastify, type FastifyInstance, type FastifyReply, type FastifyRequest } from '@runplane/http';

/** Where the interactive reference is served. */
export const DOCS_PATH = '/v1/docs';
const DOCUMENT_URL = '/v1/openapi.json';
// Absolute, so the page works at /v1/docs as well as /v1/docs/.
const SCRIPT_URL = `${DOCS_PATH}/js/scalar.js`;
const PAGE_TITLE = 'Runplane REST API v1';

let reference: Promise<FastifyInstance> | undefined;

/**
 * A Fastify instance of its own with Scalar's plugin, built on the first request for the reference: the plugin
 * holds its 4 MB script (and its OpenAPI parser) in memory, some 25 MB of an idle gateway's resident memory
 * that most installations never ask for.
 */
function scalarReference(): Promise<FastifyInstance> {
  reference ??= (async () => {
    const { default: fastifyApiReference } = await import('@scalar/fastify-api-reference');
    const instance = createFastify({ logger: false });
    await instance.register(fastifyApiReference, {
      routePrefix: DOCS_PATH,
      configuration: { url: DOCUMENT_URL, cdn: SCRIPT_URL, pageTitle: PAGE_TITLE },
    });
    await instance.ready();
    return instance;
  })().catch((error: unknown) => {
    reference = undefined;
    throw error;
  });
  return reference;
}

async function fromScalar(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const answer = await (await scalarReference()).inject({ method: 'GET', url: request.url });
  const contentType = answer.headers['content-type'];
  if (contentType !== undefined) void reply.type(String(contentType));
  return reply.code(answer.statusCode).send(answer.rawPayload);
}

/**
 * Serves Scalar's API reference for `/v1/openapi.json` at `/v1/docs`, with its script bundled (no CDN, so it
 * works offline). Scalar's plugin answers `/v1/docs` with a redirect to `/v1/docs/`; RunPod's `/docs` answers the
 * page itself, so the same page, rendered by the same Scalar function, is sent there directly.
 */
export function registerApiReference(fastify: FastifyInstance): void {
  const page = renderApiReference({ config: { url: DOCUMENT_URL }, cdn: SCRIPT_URL, pageTitle: PAGE_TITLE });
  fastify.get(DOCS_PATH, { logLevel: 'warn' }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(page),
  );
  fastify.get(`${DOCS_PATH}/`, { logLevel: 'warn' }, fromScalar);
  fastify.get(SCRIPT_URL, { logLevel: 'warn' }, fromScalar);
}
