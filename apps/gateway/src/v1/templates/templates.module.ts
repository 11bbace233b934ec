import { Module } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { RegistryAuthRepository, TemplatesRepository, TemplatesService } from '@runplane/workloads';
import { TemplatesController } from './templates.controller';
import { TEMPLATES_SERVICE } from './templates.tokens';

/** `/v1/templates`; exports TEMPLATES_SERVICE so Pods and endpoints can resolve the templates they start from. */
@Module({
  controllers: [TemplatesController],
  providers: [
    {
      provide: TEMPLATES_SERVICE,
      inject: [DB_CLIENT],
      useFactory: (db: DbClient) => new TemplatesService(new TemplatesRepository(db), new RegistryAuthRepository(db)),
    },
  ],
  exports: [TEMPLATES_SERVICE],
})
export class TemplatesModule {}
