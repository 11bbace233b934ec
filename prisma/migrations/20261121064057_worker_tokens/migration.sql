-- CreateTable
CREATE TABLE "worker_tokens" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "workerId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "worker_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "worker_tokens_hash_key" ON "worker_tokens"("hash");

-- CreateIndex
CREATE INDEX "worker_tokens_accountId_idx" ON "worker_tokens"("accountId");

-- CreateIndex
CREATE INDEX "worker_tokens_endpointId_workerId_idx" ON "worker_tokens"("endpointId", "workerId");

-- AddForeignKey
ALTER TABLE "worker_tokens" ADD CONSTRAINT "worker_tokens_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
