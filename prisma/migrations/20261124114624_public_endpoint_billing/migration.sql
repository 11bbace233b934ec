-- AlterEnum
ALTER TYPE "BillingRecordKind" ADD VALUE 'PUBLIC_ENDPOINT';
