/**
 * Fastify and Nest's Fastify platform, as the rest of Runplane sees them: this lib alone imports them (see
 * tools/lint/boundaries.mjs), so an app names their types, or builds a Fastify instance of its own, through here.
 */
export {
  default as createFastify,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type InjectOptions,
  type LightMyRequestResponse,
} from 'fastify';
export type { NestFastifyApplication } from '@nestjs/platform-fastify';
