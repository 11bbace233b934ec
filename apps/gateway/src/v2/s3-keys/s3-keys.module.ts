import { Module } from '@nestjs/common';
import { S3KeysV2Controller } from './s3-keys.controller';

/** `/v2/account/s3-keys`, over the S3KeysService v1's S3KeysModule provides. */
@Module({ controllers: [S3KeysV2Controller] })
export class S3KeysV2Module {}
