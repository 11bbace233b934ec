-- Account SSH keys (v2 /account/ssh-keys, PUBLIC_KEY of new Pods) and the v2 template settings startSsh, startJupyter, allowedCudaVersions.

-- AlterTable
ALTER TABLE "templates" ADD COLUMN     "allowedCudaVersions" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "startJupyter" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "startSsh" BOOLEAN NOT NULL DEFAULT true;

-- CreateTable
CREATE TABLE "ssh_keys" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "publicKey" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ssh_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ssh_keys_accountId_position_key" ON "ssh_keys"("accountId", "position");

-- AddForeignKey
ALTER TABLE "ssh_keys" ADD CONSTRAINT "ssh_keys_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

