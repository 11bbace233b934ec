import { type DynamicModule, Global, Module } from '@nestjs/common';
import { createS3KeysService } from '@runplane/accounts';
import { type DbClient, SecretBox } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { S3KeysController } from './s3-keys.controller';
import { S3_KEYS_SERVICE } from './s3-keys.tokens';

/** `/v1/s3keys`: Runplane's extension for the S3 access keys of the calling account; exports the service to v2. */
@Global()
@Module({})
export class S3KeysModule {
  static forRoot(options: { encryptionKey: Buffer }): DynamicModule {
    return {
      module: S3KeysModule,
      controllers: [S3KeysController],
      providers: [
        {
          provide: S3_KEYS_SERVICE,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) => createS3KeysService(db, new SecretBox(options.encryptionKey)),
        },
      ],
      exports: [S3_KEYS_SERVICE],
    };
  }
}
