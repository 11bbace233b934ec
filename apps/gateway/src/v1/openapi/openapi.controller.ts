import { Controller, Get, Header, HttpCode } from '@nestjs/common';
import type { OpenApiDocument } from './document';
import { v1OpenApiDocument } from './routes';

/** `GET /v1/openapi.json`: the v1 OpenAPI document, public like RunPod's. */
@Controller('v1')
export class OpenApiController {
  @Get('openapi.json')
  @HttpCode(200)
  @Header('cache-control', 'no-cache')
  document(): OpenApiDocument {
    return v1OpenApiDocument();
  }
}
