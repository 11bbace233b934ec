import { type DynamicModule, Module } from '@nestjs/common';
import { type DbClient, SecretBox } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { RegistryAuthRepository, RegistryAuthService } from '@runplane/workloads';
import { REGISTRIES_SERVICE, RegistriesV2Controller } from './registries.controller';

/** `/v2/registries`: v1's registry auth service over the same rows, sealing passwords with the same key. */
@Module({})
export class RegistriesV2Module {
  static forRoot(options: { encryptionKey: Buffer }): DynamicModule {
    return {
      module: RegistriesV2Module,
      controllers: [RegistriesV2Controller],
      providers: [
        {
          provide: REGISTRIES_SERVICE,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) =>
            new RegistryAuthService(new RegistryAuthRepository(db), new SecretBox(options.encryptionKey)),
        },
      ],
    };
  }
}
