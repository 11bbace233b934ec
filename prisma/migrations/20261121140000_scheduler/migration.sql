-- CreateTable
CREATE TABLE "capacity_reservations" (
    "podId" TEXT NOT NULL,
    "machineId" TEXT NOT NULL,
    "gpuCount" INTEGER NOT NULL,
    "vcpuCount" INTEGER NOT NULL,
    "memoryInGb" INTEGER NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "capacity_reservations_pkey" PRIMARY KEY ("podId")
);

-- CreateTable
CREATE TABLE "usage_ledger" (
    "resourceId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "running" BOOLEAN NOT NULL DEFAULT false,
    "snapshot" JSONB NOT NULL DEFAULT '{}',
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "usage_ledger_pkey" PRIMARY KEY ("resourceId")
);

-- CreateIndex
CREATE INDEX "capacity_reservations_machineId_idx" ON "capacity_reservations"("machineId");

-- CreateIndex
CREATE INDEX "usage_ledger_kind_idx" ON "usage_ledger"("kind");
