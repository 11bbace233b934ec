-- DropIndex
DROP INDEX "pods_accountId_idx";

-- CreateIndex
CREATE INDEX "pods_accountId_createdAt_id_idx" ON "pods"("accountId", "createdAt", "id");
