import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
  UseGuards,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Principal, UnauthorizedError } from '@runplane/contracts';
import type { FastifyRequest } from 'fastify';

/** Resolves an API key secret to its principal; null when the key is unknown or disabled. */
export interface ApiKeyAuthenticator {
  authenticate(secret: string): Promise<Principal | null>;
}

/** Injection token for the app's ApiKeyAuthenticator. */
export const API_KEY_AUTHENTICATOR = Symbol('API_KEY_AUTHENTICATOR');

const ENDPOINT_PARAM = 'runplane:endpoint-param';
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

/**
 * Takes the key from `Authorization: Bearer <key>` or a raw `Authorization: <key>` (RunPod's clients send
 * both forms). Returns null when the header is missing or blank.
 */
export function extractApiKey(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const match = /^bearer(?:\s+(.*))?$/i.exec(value.trim());
  const key = (match ? (match[1] ?? '') : value).trim();
  return key ? key : null;
}

/**
 * Authenticates a request's key and applies its scope: READ_ONLY keys may only read, RESTRICTED keys only reach
 * routes scoped to one of their endpoints (`endpointId` is the scoped route's endpoint, undefined when the route
 * is not endpoint-scoped). Shared by ApiKeyGuard and routes served by Fastify directly.
 */
export async function authorizeApiKey(
  authenticator: ApiKeyAuthenticator,
  authorization: string | string[] | undefined,
  method: string,
  endpointId: string | undefined,
): Promise<Principal> {
  const secret = extractApiKey(authorization);
  if (!secret) throw new UnauthorizedError('Missing API key');
  const principal = await authenticator.authenticate(secret);
  if (!principal) throw new UnauthorizedError('Invalid API key');
  if (principal.scope === 'READ_ONLY' && !READ_METHODS.has(method)) {
    throw new UnauthorizedError('This API key is read-only');
  }
  if (principal.scope === 'RESTRICTED' && (endpointId === undefined || !principal.allowedEndpointIds.includes(endpointId))) {
    throw new UnauthorizedError('This API key is restricted to other endpoints');
  }
  return principal;
}

/** Authenticates every request of a guarded controller with {@link authorizeApiKey}. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(API_KEY_AUTHENTICATOR) private readonly authenticator: ApiKeyAuthenticator,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const endpointId = this.scopedEndpoint(context, request);
    request.principal = await authorizeApiKey(this.authenticator, request.headers.authorization, request.method, endpointId);
    return true;
  }

  /** The endpoint a route is scoped to (its @EndpointScoped path parameter), if any. */
  private scopedEndpoint(context: ExecutionContext, request: FastifyRequest): string | undefined {
    const param = this.reflector.getAllAndOverride<string | undefined>(ENDPOINT_PARAM, [
      context.getHandler(),
      context.getClass(),
    ]);
    return param ? (request.params as Record<string, string | undefined>)[param] : undefined;
  }
}

/** Requires a valid API key on a controller or route. */
export const Authenticated = (): MethodDecorator & ClassDecorator => applyDecorators(UseGuards(ApiKeyGuard));

/** Marks a route as belonging to the endpoint named by a path parameter, so RESTRICTED keys may reach it. */
export const EndpointScoped = (param = 'endpointId'): MethodDecorator & ClassDecorator =>
  SetMetadata(ENDPOINT_PARAM, param);

/** Injects the authenticated principal (set by ApiKeyGuard). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new UnauthorizedError('Missing API key');
  return principal;
});
