-- Serverless GPU pools: the pool each GPU type belongs to (written by the catalog seed).

-- AlterTable
ALTER TABLE "gpu_types" ADD COLUMN     "pool" TEXT;
