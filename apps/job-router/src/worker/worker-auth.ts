import { UnauthorizedError } from '@runplane/contracts';
import { type ApiKeyAuthenticator, extractApiKey } from '@runplane/http';
import type { EndpointDirectory } from '../client/endpoint-directory';
import { isWorkerToken, type WorkerIdentity, type WorkerTokensService } from '../worker-tokens';

/**
 * Authenticates the worker protocol: `Authorization: <token>` raw (RunPod's worker SDK) or Bearer. A worker token
 * reaches only its own endpoint's routes as its own worker id; an ALL-scope API key of the endpoint's owner may act
 * as any worker of it (operators' own workers).
 */
export class WorkerAuthenticator {
  constructor(
    private readonly tokens: WorkerTokensService,
    private readonly apiKeys: ApiKeyAuthenticator,
    private readonly endpoints: EndpointDirectory,
  ) {}

  /** The worker a request acts as on `endpointId` / `workerId`; UnauthorizedError (or 404 for a foreign endpoint). */
  async authenticate(
    authorization: string | string[] | undefined,
    endpointId: string,
    workerId: string,
  ): Promise<WorkerIdentity> {
    const secret = extractApiKey(authorization);
    if (!secret) throw new UnauthorizedError('Missing worker token');
    return isWorkerToken(secret)
      ? this.byToken(secret, endpointId, workerId)
      : this.byApiKey(secret, endpointId, workerId);
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
    if (principal.scope !== 'ALL')
      throw new UnauthorizedError('Worker routes need a worker token or an ALL-scope API key');
    const endpoint = await this.endpoints.requireOwned(principal.accountId, endpointId);
    return { accountId: endpoint.accountId, endpointId, workerId };
  }
}
