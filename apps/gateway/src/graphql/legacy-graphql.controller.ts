import { Body, Controller, Headers, HttpCode, Inject, Post, Query } from '@nestjs/common';
import { ValidationError } from '@runplane/contracts';
import { API_KEY_AUTHENTICATOR, type ApiKeyAuthenticator, authorizeApiKey } from '@runplane/http';
import type { LegacyGraphql, LegacyRequest, LegacyResponse } from './legacy-graphql';
import { LEGACY_GRAPHQL } from './tokens';

function requestOf(body: unknown): LegacyRequest {
  const candidate = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const { query, variables, operationName } = candidate;
  if (typeof query !== 'string' || query.trim() === '') throw new ValidationError('Body must have a query string');
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    throw new ValidationError('variables must be an object');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw new ValidationError('operationName must be a string');
  }
  return { query, variables: variables as LegacyRequest['variables'], operationName };
}

/**
 * RunPod's GraphQL API at `POST /graphql`, for the clients that still manage over it (runpod-python ≤ 1.12,
 * runpodctl's GraphQL commands). The key comes as `Authorization: Bearer <key>` (every client) or `?api_key=`
 * (RunPod accepts both); a missing or unknown key is a 401, the only non-200 answer besides a body that is not a
 * GraphQL request (400). Everything an operation refuses is HTTP 200 with `errors[].message`, as the clients expect.
 */
@Controller('graphql')
export class LegacyGraphqlController {
  constructor(
    @Inject(API_KEY_AUTHENTICATOR) private readonly authenticator: ApiKeyAuthenticator,
    @Inject(LEGACY_GRAPHQL) private readonly graphql: LegacyGraphql,
  ) {}

  @Post()
  @HttpCode(200)
  async execute(
    @Headers('authorization') authorization: string | undefined,
    @Query('api_key') apiKey: unknown,
    @Body() body: unknown,
  ): Promise<LegacyResponse> {
    const key = authorization ?? (typeof apiKey === 'string' ? apiKey : undefined);
    const principal = await authorizeApiKey(this.authenticator, key, 'read', undefined);
    const request = requestOf(body);
    if (principal.scope === 'READ_ONLY' && this.graphql.isMutation(request)) {
      return { data: null, errors: [{ message: 'This API key is read-only' }] };
    }
    return this.graphql.run(request, { accountId: principal.accountId });
  }
}
