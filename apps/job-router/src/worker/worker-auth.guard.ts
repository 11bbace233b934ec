import { type CanActivate, createParamDecorator, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { UnauthorizedError } from '@runplane/contracts';
import { API_KEY_AUTHENTICATOR, type ApiKeyAuthenticator, extractApiKey } from '@runplane/http';
import type { FastifyRequest } from 'fastify';
import { EndpointDirectory } from '../client/endpoint-directory';
import { isWorkerToken, type WorkerIdentity, WorkerTokensService } from '../worker-tokens';

type WorkerRequest = FastifyRequest & { worker?: WorkerIdentity };

/**
 * Authenticates the worker protocol: `Authorization: <token>` raw (RunPod's worker SDK) or Bearer. A worker token
 * reaches only its own endpoint's routes as its own worker id; an ALL-scope API key of the endpoint's owner may act
 * as any worker of it (operators' own workers).
 */
@Injectable()
export class WorkerAuthGuard implements CanActivate {
  constructor(
    @Inject(WorkerTokensService) private readonly tokens: WorkerTokensService,
    @Inject(API_KEY_AUTHENTICATOR) private readonly apiKeys: ApiKeyAuthenticator,
    @Inject(EndpointDirectory) private readonly endpoints: EndpointDirectory,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<WorkerRequest>();
    const secret = extractApiKey(request.headers.authorization);
    if (!secret) throw new UnauthorizedError('Missing worker token');
    const params = request.params as Record<string, string | undefined>;
    const endpointId = params.endpointId ?? '';
    const workerId = params.workerId ?? '';
    request.worker = isWorkerToken(secret)
      ? await this.byToken(secret, endpointId, workerId)
      : await this.byApiKey(secret, endpointId, workerId);
    return true;
  }

  private async byToken(token: string, endpointId: string, workerId: string): Promise<WorkerIdentity> {
    const identity = await this.tokens.authenticate(token);
    if (!identity) throw new UnauthorizedError('Invalid worker token');
    if (identity.endpointId !== endpointId) throw new UnauthorizedError('This worker token is for another endpoint');
    if (identity.workerId !== workerId) throw new UnauthorizedError('This worker token is for another worker');
    return identity;
  }

  private async byApiKey(secret: string, endpointId: string, workerId: string): Promise<WorkerIdentity> {
    const principal = await this.apiKeys.authenticate(secret);
    if (!principal) throw new UnauthorizedError('Invalid worker token');
    if (principal.scope !== 'ALL') throw new UnauthorizedError('Worker routes need a worker token or an ALL-scope API key');
    const endpoint = await this.endpoints.requireOwned(principal.accountId, endpointId);
    return { accountId: endpoint.accountId, endpointId, workerId };
  }
}

/** Injects the authenticated worker (set by WorkerAuthGuard). */
export const CurrentWorker = createParamDecorator((_data: unknown, context: ExecutionContext): WorkerIdentity => {
  const worker = context.switchToHttp().getRequest<WorkerRequest>().worker;
  if (!worker) throw new UnauthorizedError('Missing worker token');
  return worker;
});
