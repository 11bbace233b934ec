import { Get, Header } from '@nestjs/common';
import { V2PublicController } from '../http/v2-controller';
import { type V2OpenApiDocument } from './document';
import { v2OpenApiDocument } from './routes';

/** `GET /v2/openapi.json`, without a key: the document generated from the schemas that validate v2 requests. */
@V2PublicController('openapi.json')
export class V2OpenApiController {
  @Get()
  @Header('cache-control', 'no-cache')
  document(): V2OpenApiDocument {
    return v2OpenApiDocument();
  }
}
