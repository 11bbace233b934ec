-- Webhook delivery: per-attempt records, the delivery's idempotency key and body, and per-account signing secrets.

-- DropIndex (covered by the new (accountId, endpointId, createdAt, id) index)
DROP INDEX "webhook_deliveries_accountId_idx";

-- DropIndex (a job retried after it finished gets a second delivery to the same URL, sourceKey is the key now)
DROP INDEX "webhook_deliveries_jobId_url_key";

-- AlterTable: rows written before this migration take their own id as their key.
ALTER TABLE "webhook_deliveries" ADD COLUMN     "body" TEXT,
ADD COLUMN     "maxAttempts" INTEGER NOT NULL DEFAULT 3,
ADD COLUMN     "sourceKey" TEXT;
UPDATE "webhook_deliveries" SET "sourceKey" = "id" WHERE "sourceKey" IS NULL;
ALTER TABLE "webhook_deliveries" ALTER COLUMN "sourceKey" SET NOT NULL;

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "statusCode" INTEGER,
    "durationMs" INTEGER,
    "error" TEXT,
    "responseExcerpt" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_signing_secrets" (
    "accountId" TEXT NOT NULL,
    "secretEncrypted" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_signing_secrets_pkey" PRIMARY KEY ("accountId")
);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_attempts_deliveryId_attempt_key" ON "webhook_attempts"("deliveryId", "attempt");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_sourceKey_key" ON "webhook_deliveries"("sourceKey");

-- CreateIndex
CREATE INDEX "webhook_deliveries_accountId_endpointId_createdAt_id_idx" ON "webhook_deliveries"("accountId", "endpointId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_signing_secrets" ADD CONSTRAINT "webhook_signing_secrets_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
