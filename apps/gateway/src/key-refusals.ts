import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  API_KEY_AUTHENTICATOR,
  type ApiKeyAuthenticator,
  type FastifyInstance,
  type RefusalWriter,
  refuseKeysEarly,
  sendError,
} from '@runplane/http';
import { answerWithProblem } from './v2/http/problem';
import { V2_PATH } from './v2/http/edge-problems';

/** A refused key on a `/v2` route as problem+json, elsewhere in v1's `{"message"}` shape: what each API's filter writes. */
const answerRefusal: RefusalWriter = (error, target) => {
  if (V2_PATH.test(target.request.url)) answerWithProblem(error, target);
  else sendError({ style: 'v1', logger: target.request.log }, error, target);
};

/**
 * Answers a missing, unknown or disabled API key on every authenticated v1 and v2 route before Nest's router runs
 * (see refuseKeysEarly): a wrong key costs the gateway about what a health probe does.
 */
@Injectable()
export class KeyRefusals implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(API_KEY_AUTHENTICATOR) private readonly authenticator: ApiKeyAuthenticator,
  ) {}

  onModuleInit(): void {
    refuseKeysEarly(this.adapterHost.httpAdapter.getInstance<FastifyInstance>(), this.authenticator, answerRefusal);
  }
}
