-- AlterTable
ALTER TABLE "pods" ADD COLUMN     "serviceAddress" TEXT,
ADD COLUMN     "healthAddress" TEXT;
