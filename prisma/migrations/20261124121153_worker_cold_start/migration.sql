-- AlterTable
ALTER TABLE "pods" ADD COLUMN     "coldStart" JSONB;
