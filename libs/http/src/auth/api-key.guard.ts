import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import { type Principal, UnauthorizedError } from '@runplane/contracts';
import type { FastifyRequest } from 'fastify';

/** Resolves an API key secret to its principal; null when the key is unknown or disabled. */
export interface ApiKeyAuthenticator {
  authenticate(secret: string): Promise<Principal | null>;
}

/** Injection token for the app's ApiKeyAuthenticator. */
export const API_KEY_AUTHENTICATOR = Symbol('API_KEY_AUTHENTICATOR');

const ENDPOINT_PARAM = 'runplane:endpoint-param';
/** The Fastify route config flag @Authenticated() sets on each of its routes (read by refuseKeysEarly). */
export const API_KEY_ROUTE = 'runplaneApiKey';
const ACCESS = 'runplane:route-access';

/**
 * What an operation does, which decides the API key scopes that may call it, whatever its HTTP method: `read` changes
 * nothing; `write` changes state (a GET that submits a job or moves a job's deletion time is one); `secret` hands out
 * a credential and needs a key that may write.
 */
export type RouteAccess = 'read' | 'write' | 'secret';

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

/** Refuses a principal whose scope does not cover the operation (see RouteAccess) on the route's endpoint. */
function checkScope(principal: Principal, access: RouteAccess, endpointId: string | undefined): void {
  if (principal.scope === 'READ_ONLY' && access !== 'read') {
    throw new UnauthorizedError(
      access === 'secret'
        ? 'This API key is read-only; secrets need a key that may write'
        : 'This API key is read-only',
    );
  }
  if (
    principal.scope === 'RESTRICTED' &&
    (endpointId === undefined || !principal.allowedEndpointIds.includes(endpointId))
  ) {
    throw new UnauthorizedError('This API key is restricted to other endpoints');
  }
}

// Built once: a refusal carries nothing of its request, and a stack trace per wrong key would be most of its cost.
const MISSING_KEY = new UnauthorizedError('Missing API key');
const INVALID_KEY = new UnauthorizedError('Invalid API key');

/** The principal of the key in an Authorization header; throws 401 when it is missing, unknown or disabled. */
export async function authenticateApiKey(
  authenticator: ApiKeyAuthenticator,
  authorization: string | string[] | undefined,
): Promise<Principal> {
  const secret = extractApiKey(authorization);
  if (!secret) throw MISSING_KEY;
  const principal = await authenticator.authenticate(secret);
  if (!principal) throw INVALID_KEY;
  return principal;
}

/**
 * Authenticates a request's key (see {@link authenticateApiKey}) and applies its scope to the operation: READ_ONLY keys may only read, RESTRICTED keys
 * only reach routes scoped to one of their endpoints (`endpointId` is the scoped route's endpoint, undefined when the
 * route is not endpoint-scoped). Shared by ApiKeyGuard and routes served by Fastify directly.
 */
export async function authorizeApiKey(
  authenticator: ApiKeyAuthenticator,
  authorization: string | string[] | undefined,
  access: RouteAccess,
  endpointId: string | undefined,
): Promise<Principal> {
  const principal = await authenticateApiKey(authenticator, authorization);
  checkScope(principal, access, endpointId);
  return principal;
}

/** Leaves the request's authenticated principal for ApiKeyGuard and the route (see refuseKeysEarly). */
export function setRequestPrincipal(request: FastifyRequest, principal: Principal): void {
  (request as AuthenticatedRequest).principal = principal;
}

/**
 * Authenticates every request of a guarded controller with {@link authorizeApiKey}. When refuseKeysEarly already
 * authenticated the key (the gateway), only the route's scope is applied here.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(API_KEY_AUTHENTICATOR) private readonly authenticator: ApiKeyAuthenticator,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const endpointId = this.scopedEndpoint(context, request);
    const access = this.reflector.get<RouteAccess | undefined>(ACCESS, context.getHandler());
    // Authenticated() refuses such a controller when it is declared; this only guards a guard applied by hand.
    if (!access) throw new Error(`${context.getClass().name}.${context.getHandler().name} declares no access`);
    if (request.principal) checkScope(request.principal, access, endpointId);
    else
      request.principal = await authorizeApiKey(this.authenticator, request.headers.authorization, access, endpointId);
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

/**
 * Throws when a route handler of `controller` has no @Reads, @Writes or @ReadsSecret; marks every route in its Fastify
 * route config as one that needs a key (API_KEY_ROUTE, read by refuseKeysEarly).
 */
function prepareRoutes(controller: { name: string; prototype: object }): void {
  const reflector = new Reflector();
  const prototype = controller.prototype;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const handler = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
    if (name === 'constructor' || typeof handler !== 'function') continue;
    if (reflector.get(PATH_METADATA, handler) === undefined) continue;
    if (reflector.get(ACCESS, handler) === undefined) {
      throw new Error(
        `${controller.name}.${name}: an authenticated route declares its access with @Reads(), @Writes() or @ReadsSecret()`,
      );
    }
    const config = reflector.get<Record<string, unknown> | undefined>(FASTIFY_ROUTE_CONFIG_METADATA, handler);
    Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, [API_KEY_ROUTE]: true }, handler);
  }
}

/**
 * Requires a valid API key on every route of a controller, whose scope must cover what the route does: each route
 * declares it with @Reads(), @Writes() or @ReadsSecret(), else the controller fails as it is loaded.
 */
export const Authenticated = (): ClassDecorator => (controller) => {
  // Method decorators run before class decorators, so every route's declaration is already there.
  prepareRoutes(controller);
  UseGuards(ApiKeyGuard)(controller);
};

/** The route changes nothing: every scope may call it. */
export const Reads = (): MethodDecorator => SetMetadata(ACCESS, 'read' satisfies RouteAccess);
/** The route changes state, whatever its HTTP method: not for READ_ONLY keys. */
export const Writes = (): MethodDecorator => SetMetadata(ACCESS, 'write' satisfies RouteAccess);
/** The route hands out a credential (a signing secret): only for keys that may write. */
export const ReadsSecret = (): MethodDecorator => SetMetadata(ACCESS, 'secret' satisfies RouteAccess);

/** Marks a route as belonging to the endpoint named by a path parameter, so RESTRICTED keys may reach it. */
export const EndpointScoped = (param = 'endpointId'): MethodDecorator & ClassDecorator =>
  SetMetadata(ENDPOINT_PARAM, param);

/** The principal ApiKeyGuard authenticated for a request (for interceptors of guarded routes). */
export function requestPrincipal(request: FastifyRequest): Principal {
  const principal = (request as AuthenticatedRequest).principal;
  if (!principal) throw new UnauthorizedError('Missing API key');
  return principal;
}

/** Injects the authenticated principal (set by ApiKeyGuard). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal =>
  requestPrincipal(context.switchToHttp().getRequest<FastifyRequest>()),
);
