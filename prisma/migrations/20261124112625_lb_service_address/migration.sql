-- AlterTable
ALTER TABLE "pods" ADD COLUMN     "serviceAddress" TEXT;
