export {
  checkDatabase,
  createPrismaClient,
  withTransaction,
  type DatabaseClient,
  type DbClient,
  type PrismaClientOptions,
  type TransactionOptions,
} from './client';
export { isForeignKeyViolation, isRecordNotFound, isUniqueViolation } from './errors';
export { flatString, newId, randomUuid } from './ids';
export { SecretBox } from './secret-box';
export { DatabaseAdmin, databaseNameOf, ensureDatabaseExists, withDatabaseAdmin, withDatabaseName } from './admin';
export { applyMigrations, migrationsFingerprint, repositoryRoot, type ApplyMigrationsOptions } from './migrations';
export { missingMigrations, shippedMigrations } from './schema-state';
export { releaseQueryCompilerSource } from './query-compiler-source';
export { Prisma } from './generated/prisma/client';
export type {
  Account,
  ApiKey,
  BillingRecord,
  ContainerRegistryAuth,
  CpuFlavor,
  DataCenter,
  Endpoint,
  GpuType,
  Machine,
  NetworkVolume,
  Pod,
  PublicEndpoint,
  S3Key,
  SavingsPlan,
  Template,
  UsageEvent,
  UsageInterval,
  WebhookAttempt,
  WebhookDelivery,
  WebhookSigningSecret,
} from './generated/prisma/client';
export {
  ApiKeyScope,
  BillingRecordKind,
  CloudType,
  ComputeType,
  PodDesiredStatus,
  PodPhase,
  ScalerType,
  SelectionPriority,
  TemplateCategory,
  UsagePhase,
  UsageResourceKind,
  WebhookDeliveryStatus,
} from './generated/prisma/client';
