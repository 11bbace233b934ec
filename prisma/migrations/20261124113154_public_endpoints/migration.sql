-- AlterEnum
ALTER TYPE "UsageResourceKind" ADD VALUE 'PUBLIC_JOB';

-- AlterTable
ALTER TABLE "usage_intervals" ADD COLUMN     "flatAmount" DECIMAL(14,6) NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "public_endpoints" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "inputSchema" JSONB NOT NULL DEFAULT '{}',
    "outputSchema" JSONB NOT NULL DEFAULT '{}',
    "pricePerRequest" DECIMAL(14,6),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "public_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "public_endpoints_name_key" ON "public_endpoints"("name");

-- CreateIndex
CREATE UNIQUE INDEX "public_endpoints_endpointId_key" ON "public_endpoints"("endpointId");

-- CreateIndex
CREATE INDEX "public_endpoints_accountId_idx" ON "public_endpoints"("accountId");

-- AddForeignKey
ALTER TABLE "public_endpoints" ADD CONSTRAINT "public_endpoints_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
