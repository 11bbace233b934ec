-- CreateTable
CREATE TABLE "s3_keys" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "accessKeyId" TEXT NOT NULL,
    "secretSealed" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "s3_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "s3_keys_accessKeyId_key" ON "s3_keys"("accessKeyId");

-- CreateIndex
CREATE INDEX "s3_keys_accountId_idx" ON "s3_keys"("accountId");

-- AddForeignKey
ALTER TABLE "s3_keys" ADD CONSTRAINT "s3_keys_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
