-- Billing dimensions: the usage events the aggregator accepted, interval phases and storage prices, and
-- template / image / data center on billing records (so filters outlive the resources).

-- CreateEnum
CREATE TYPE "UsagePhase" AS ENUM ('RUNNING', 'STOPPED', 'STORED');

-- DropIndex
DROP INDEX "billing_records_accountId_kind_time_podId_endpointId_gpuTyp_key";

-- AlterTable
ALTER TABLE "billing_records" ADD COLUMN     "dataCenterId" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "imageName" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "templateId" TEXT NOT NULL DEFAULT '',
ALTER COLUMN "amount" SET DATA TYPE DECIMAL(20,10),
ALTER COLUMN "highPerformanceStorageAmount" SET DATA TYPE DECIMAL(20,10);

-- AlterTable
ALTER TABLE "usage_intervals" ADD COLUMN     "billedUntil" TIMESTAMP(3),
ADD COLUMN     "imageName" TEXT,
ADD COLUMN     "phase" "UsagePhase" NOT NULL DEFAULT 'RUNNING',
ADD COLUMN     "storageCostPerMonth" DECIMAL(14,6) NOT NULL DEFAULT 0,
ADD COLUMN     "templateId" TEXT;

-- CreateTable
CREATE TABLE "usage_events" (
    "eventId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "resourceKind" "UsageResourceKind" NOT NULL,
    "resourceId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "usage_events_pkey" PRIMARY KEY ("eventId")
);

-- CreateIndex
CREATE INDEX "usage_events_resourceKind_resourceId_occurredAt_idx" ON "usage_events"("resourceKind", "resourceId", "occurredAt");

-- CreateIndex
CREATE INDEX "billing_records_accountId_kind_podId_time_idx" ON "billing_records"("accountId", "kind", "podId", "time");

-- CreateIndex
CREATE INDEX "billing_records_accountId_kind_networkVolumeId_time_idx" ON "billing_records"("accountId", "kind", "networkVolumeId", "time");

-- CreateIndex
CREATE UNIQUE INDEX "billing_records_accountId_kind_time_podId_endpointId_gpuTyp_key" ON "billing_records"("accountId", "kind", "time", "podId", "endpointId", "gpuTypeId", "networkVolumeId", "templateId", "imageName", "dataCenterId");

-- AddForeignKey
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
