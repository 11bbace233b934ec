import { renderApiReference } from '@scalar/client-side-rendering';
import fastifyApiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';

/** Where the interactive reference is served. */
export const DOCS_PATH = '/v1/docs';
const DOCUMENT_URL = '/v1/openapi.json';
// Absolute, so the page works at /v1/docs as well as /v1/docs/.
const SCRIPT_URL = `${DOCS_PATH}/js/scalar.js`;
const PAGE_TITLE = 'Runplane REST API v1';

/**
 * Serves Scalar's API reference for `/v1/openapi.json` at `/v1/docs`, with its script bundled (no CDN, so it
 * works offline). The plugin answers `/v1/docs` with a redirect to `/v1/docs/`; RunPod's `/docs` answers the
 * page itself, so the same page, rendered by the same Scalar function, is sent there directly.
 */
export function registerApiReference(fastify: FastifyInstance): void {
  const configuration = { url: DOCUMENT_URL, cdn: SCRIPT_URL, pageTitle: PAGE_TITLE };
  const page = renderApiReference({ config: { url: DOCUMENT_URL }, cdn: SCRIPT_URL, pageTitle: PAGE_TITLE });
  void fastify.register(fastifyApiReference, {
    routePrefix: DOCS_PATH,
    configuration,
    logLevel: 'warn',
    hooks: {
      // Returning the reply tells Fastify the response is sent, so the plugin's redirect handler never runs.
      onRequest: async (request, reply) =>
        request.routeOptions.url === DOCS_PATH ? reply.type('text/html; charset=utf-8').send(page) : undefined,
    },
  });
}
