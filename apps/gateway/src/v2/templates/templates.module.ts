import { Module } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import type { TemplatesService } from '@runplane/workloads';
import { TemplatesModule } from '../../v1/templates/templates.module';
import { TEMPLATES_SERVICE } from '../../v1/templates/templates.tokens';
import { TemplatesV2Controller } from './templates.controller';
import { TemplatesV2Service } from './templates-v2.service';

/** `/v2/templates`, on the TemplatesService v1 serves (same rows, same rules). */
@Module({
  imports: [TemplatesModule],
  controllers: [TemplatesV2Controller],
  providers: [
    {
      provide: TemplatesV2Service,
      inject: [TEMPLATES_SERVICE, DB_CLIENT],
      useFactory: (templates: TemplatesService, db: DbClient) => new TemplatesV2Service(templates, db),
    },
  ],
})
export class TemplatesV2Module {}
