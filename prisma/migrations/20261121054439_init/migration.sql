-- CreateEnum
CREATE TYPE "ApiKeyScope" AS ENUM ('ALL', 'READ_ONLY', 'RESTRICTED');

-- CreateEnum
CREATE TYPE "ComputeType" AS ENUM ('GPU', 'CPU');

-- CreateEnum
CREATE TYPE "CloudType" AS ENUM ('SECURE', 'COMMUNITY');

-- CreateEnum
CREATE TYPE "SelectionPriority" AS ENUM ('availability', 'custom');

-- CreateEnum
CREATE TYPE "PodDesiredStatus" AS ENUM ('RUNNING', 'EXITED', 'TERMINATED');

-- CreateEnum
CREATE TYPE "PodPhase" AS ENUM ('PENDING', 'CREATING', 'RUNNING', 'STOPPING', 'EXITED', 'FAILED', 'TERMINATED', 'UNKNOWN');

-- CreateEnum
CREATE TYPE "TemplateCategory" AS ENUM ('NVIDIA', 'AMD', 'CPU');

-- CreateEnum
CREATE TYPE "ScalerType" AS ENUM ('QUEUE_DELAY', 'REQUEST_COUNT');

-- CreateEnum
CREATE TYPE "UsageResourceKind" AS ENUM ('POD', 'WORKER', 'NETWORK_VOLUME');

-- CreateEnum
CREATE TYPE "BillingRecordKind" AS ENUM ('POD', 'ENDPOINT', 'NETWORK_VOLUME');

-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('PENDING', 'SUCCEEDED', 'FAILED');

-- CreateTable
CREATE TABLE "accounts" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scope" "ApiKeyScope" NOT NULL DEFAULT 'ALL',
    "allowedEndpointIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "lastUsedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "container_registry_auths" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "passwordEncrypted" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "container_registry_auths_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "templates" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "imageName" TEXT NOT NULL,
    "category" "TemplateCategory" NOT NULL DEFAULT 'NVIDIA',
    "containerDiskInGb" INTEGER NOT NULL DEFAULT 50,
    "volumeInGb" INTEGER NOT NULL DEFAULT 20,
    "volumeMountPath" TEXT NOT NULL DEFAULT '/workspace',
    "ports" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "env" JSONB NOT NULL DEFAULT '{}',
    "dockerEntrypoint" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "dockerStartCmd" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "isPublic" BOOLEAN NOT NULL DEFAULT false,
    "isServerless" BOOLEAN NOT NULL DEFAULT false,
    "isRunpod" BOOLEAN NOT NULL DEFAULT false,
    "readme" TEXT NOT NULL DEFAULT '',
    "containerRegistryAuthId" TEXT,
    "earned" DECIMAL(14,6) NOT NULL DEFAULT 0,
    "runtimeInMin" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "templates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "network_volumes" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "dataCenterId" TEXT NOT NULL,
    "highPerformance" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "network_volumes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "endpoints" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "templateId" TEXT NOT NULL,
    "computeType" "ComputeType" NOT NULL DEFAULT 'GPU',
    "gpuTypeIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "gpuCount" INTEGER NOT NULL DEFAULT 1,
    "cpuFlavorIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "vcpuCount" INTEGER NOT NULL DEFAULT 2,
    "instanceIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "dataCenterIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "networkVolumeId" TEXT,
    "networkVolumeIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "allowedCudaVersions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "minCudaVersion" TEXT,
    "executionTimeoutMs" INTEGER NOT NULL DEFAULT 600000,
    "idleTimeout" INTEGER NOT NULL DEFAULT 5,
    "scalerType" "ScalerType" NOT NULL DEFAULT 'QUEUE_DELAY',
    "scalerValue" INTEGER NOT NULL DEFAULT 4,
    "workersMin" INTEGER NOT NULL DEFAULT 0,
    "workersMax" INTEGER NOT NULL DEFAULT 3,
    "flashboot" BOOLEAN NOT NULL DEFAULT false,
    "env" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pods" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT 'my pod',
    "image" TEXT NOT NULL,
    "templateId" TEXT,
    "endpointId" TEXT,
    "slsVersion" INTEGER NOT NULL DEFAULT 0,
    "desiredStatus" "PodDesiredStatus" NOT NULL DEFAULT 'RUNNING',
    "locked" BOOLEAN NOT NULL DEFAULT false,
    "interruptible" BOOLEAN NOT NULL DEFAULT false,
    "cloudType" "CloudType" NOT NULL DEFAULT 'SECURE',
    "computeType" "ComputeType" NOT NULL DEFAULT 'GPU',
    "gpuTypeIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "gpuTypePriority" "SelectionPriority" NOT NULL DEFAULT 'availability',
    "cpuFlavorIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "cpuFlavorPriority" "SelectionPriority" NOT NULL DEFAULT 'availability',
    "dataCenterIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "dataCenterPriority" "SelectionPriority" NOT NULL DEFAULT 'availability',
    "countryCodes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "allowedCudaVersions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "minRAMPerGPU" INTEGER NOT NULL DEFAULT 8,
    "minVCPUPerGPU" INTEGER NOT NULL DEFAULT 2,
    "minDiskBandwidthMBps" DOUBLE PRECISION,
    "minDownloadMbps" DOUBLE PRECISION,
    "minUploadMbps" DOUBLE PRECISION,
    "supportPublicIp" BOOLEAN,
    "globalNetworking" BOOLEAN NOT NULL DEFAULT false,
    "gpuTypeId" TEXT,
    "gpuCount" INTEGER NOT NULL DEFAULT 0,
    "cpuFlavorId" TEXT,
    "vcpuCount" INTEGER NOT NULL DEFAULT 2,
    "memoryInGb" INTEGER NOT NULL DEFAULT 0,
    "dataCenterId" TEXT,
    "machineId" TEXT,
    "costPerHr" DECIMAL(14,6) NOT NULL DEFAULT 0,
    "adjustedCostPerHr" DECIMAL(14,6) NOT NULL DEFAULT 0,
    "containerDiskInGb" INTEGER NOT NULL DEFAULT 50,
    "volumeInGb" INTEGER NOT NULL DEFAULT 20,
    "volumeMountPath" TEXT NOT NULL DEFAULT '/workspace',
    "volumeEncrypted" BOOLEAN NOT NULL DEFAULT false,
    "networkVolumeId" TEXT,
    "containerRegistryAuthId" TEXT,
    "ports" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "env" JSONB NOT NULL DEFAULT '{}',
    "dockerEntrypoint" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "dockerStartCmd" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "publicIp" TEXT,
    "portMappings" JSONB,
    "lastStartedAt" TIMESTAMP(3),
    "lastStatusChange" TEXT,
    "lastStatusChangeAt" TIMESTAMP(3),
    "observedPhase" "PodPhase" NOT NULL DEFAULT 'PENDING',
    "observedAt" TIMESTAMP(3),
    "statusMessage" TEXT,
    "kubeNamespace" TEXT,
    "kubeName" TEXT,
    "generation" INTEGER NOT NULL DEFAULT 1,
    "terminatedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "pods_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "machines" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "gpuTypeId" TEXT,
    "gpuProduct" TEXT,
    "gpuCount" INTEGER NOT NULL DEFAULT 0,
    "gpuAvailable" INTEGER NOT NULL DEFAULT 0,
    "minPodGpuCount" INTEGER NOT NULL DEFAULT 1,
    "cpuCount" INTEGER NOT NULL DEFAULT 0,
    "cpuTypeId" TEXT,
    "memoryInGb" INTEGER NOT NULL DEFAULT 0,
    "dataCenterId" TEXT,
    "location" TEXT,
    "secureCloud" BOOLEAN NOT NULL DEFAULT true,
    "supportPublicIp" BOOLEAN NOT NULL DEFAULT false,
    "costPerHr" DECIMAL(14,6) NOT NULL DEFAULT 0,
    "currentPricePerGpu" DECIMAL(14,6) NOT NULL DEFAULT 0,
    "diskThroughputMBps" INTEGER,
    "maxDownloadSpeedMbps" INTEGER,
    "maxUploadSpeedMbps" INTEGER,
    "maintenanceStart" TIMESTAMP(3),
    "maintenanceEnd" TIMESTAMP(3),
    "maintenanceNote" TEXT,
    "note" TEXT,
    "ready" BOOLEAN NOT NULL DEFAULT false,
    "schedulable" BOOLEAN NOT NULL DEFAULT true,
    "capacity" JSONB NOT NULL DEFAULT '{}',
    "allocatable" JSONB NOT NULL DEFAULT '{}',
    "labels" JSONB NOT NULL DEFAULT '{}',
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "machines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "gpu_types" (
    "id" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "manufacturer" TEXT NOT NULL,
    "memoryInGb" INTEGER NOT NULL,
    "gfdProduct" TEXT,
    "maxGpuCount" INTEGER NOT NULL DEFAULT 8,
    "secureCloud" BOOLEAN NOT NULL DEFAULT true,
    "communityCloud" BOOLEAN NOT NULL DEFAULT true,
    "securePrice" DECIMAL(14,6),
    "communityPrice" DECIMAL(14,6),
    "secureSpotPrice" DECIMAL(14,6),
    "communitySpotPrice" DECIMAL(14,6),
    "oneWeekPrice" DECIMAL(14,6),
    "oneMonthPrice" DECIMAL(14,6),
    "threeMonthPrice" DECIMAL(14,6),
    "sixMonthPrice" DECIMAL(14,6),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "gpu_types_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cpu_flavors" (
    "id" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,
    "minVcpu" INTEGER NOT NULL DEFAULT 2,
    "maxVcpu" INTEGER NOT NULL DEFAULT 32,
    "ramPerVcpuGb" INTEGER NOT NULL,
    "pricePerVcpuHr" DECIMAL(14,6) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "cpu_flavors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "data_centers" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "location" TEXT NOT NULL,
    "countryCode" TEXT NOT NULL,
    "storageSupport" BOOLEAN NOT NULL DEFAULT true,
    "highPerformanceStorage" BOOLEAN NOT NULL DEFAULT false,
    "listed" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "data_centers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "savings_plans" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "podId" TEXT NOT NULL,
    "gpuTypeId" TEXT NOT NULL,
    "costPerHr" DECIMAL(14,6) NOT NULL,
    "startTime" TIMESTAMP(3) NOT NULL,
    "endTime" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "savings_plans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_intervals" (
    "id" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "endEventId" TEXT,
    "accountId" TEXT NOT NULL,
    "resourceKind" "UsageResourceKind" NOT NULL,
    "resourceId" TEXT NOT NULL,
    "endpointId" TEXT,
    "gpuTypeId" TEXT,
    "gpuCount" INTEGER NOT NULL DEFAULT 0,
    "cpuFlavorId" TEXT,
    "dataCenterId" TEXT,
    "diskSpaceGb" INTEGER NOT NULL DEFAULT 0,
    "highPerformance" BOOLEAN NOT NULL DEFAULT false,
    "ratePerHr" DECIMAL(14,6) NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "usage_intervals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "billing_records" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "kind" "BillingRecordKind" NOT NULL,
    "time" TIMESTAMP(3) NOT NULL,
    "podId" TEXT NOT NULL DEFAULT '',
    "endpointId" TEXT NOT NULL DEFAULT '',
    "gpuTypeId" TEXT NOT NULL DEFAULT '',
    "networkVolumeId" TEXT NOT NULL DEFAULT '',
    "amount" DECIMAL(14,6) NOT NULL DEFAULT 0,
    "timeBilledMs" BIGINT NOT NULL DEFAULT 0,
    "diskSpaceBilledGb" INTEGER NOT NULL DEFAULT 0,
    "highPerformanceStorageAmount" DECIMAL(14,6) NOT NULL DEFAULT 0,
    "highPerformanceStorageDiskSpaceBilledGb" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "billing_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "nextAttemptAt" TIMESTAMP(3),
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_accountId_idx" ON "api_keys"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "container_registry_auths_accountId_name_key" ON "container_registry_auths"("accountId", "name");

-- CreateIndex
CREATE INDEX "templates_isPublic_idx" ON "templates"("isPublic");

-- CreateIndex
CREATE INDEX "templates_containerRegistryAuthId_idx" ON "templates"("containerRegistryAuthId");

-- CreateIndex
CREATE UNIQUE INDEX "templates_accountId_name_key" ON "templates"("accountId", "name");

-- CreateIndex
CREATE INDEX "network_volumes_accountId_idx" ON "network_volumes"("accountId");

-- CreateIndex
CREATE INDEX "endpoints_accountId_idx" ON "endpoints"("accountId");

-- CreateIndex
CREATE INDEX "endpoints_templateId_idx" ON "endpoints"("templateId");

-- CreateIndex
CREATE INDEX "endpoints_networkVolumeId_idx" ON "endpoints"("networkVolumeId");

-- CreateIndex
CREATE INDEX "pods_accountId_idx" ON "pods"("accountId");

-- CreateIndex
CREATE INDEX "pods_endpointId_idx" ON "pods"("endpointId");

-- CreateIndex
CREATE INDEX "pods_machineId_idx" ON "pods"("machineId");

-- CreateIndex
CREATE INDEX "pods_templateId_idx" ON "pods"("templateId");

-- CreateIndex
CREATE INDEX "pods_networkVolumeId_idx" ON "pods"("networkVolumeId");

-- CreateIndex
CREATE INDEX "pods_containerRegistryAuthId_idx" ON "pods"("containerRegistryAuthId");

-- CreateIndex
CREATE INDEX "pods_desiredStatus_observedPhase_idx" ON "pods"("desiredStatus", "observedPhase");

-- CreateIndex
CREATE UNIQUE INDEX "pods_kubeNamespace_kubeName_key" ON "pods"("kubeNamespace", "kubeName");

-- CreateIndex
CREATE UNIQUE INDEX "machines_name_key" ON "machines"("name");

-- CreateIndex
CREATE INDEX "machines_gpuTypeId_dataCenterId_idx" ON "machines"("gpuTypeId", "dataCenterId");

-- CreateIndex
CREATE INDEX "savings_plans_accountId_idx" ON "savings_plans"("accountId");

-- CreateIndex
CREATE INDEX "savings_plans_podId_idx" ON "savings_plans"("podId");

-- CreateIndex
CREATE UNIQUE INDEX "usage_intervals_eventId_key" ON "usage_intervals"("eventId");

-- CreateIndex
CREATE UNIQUE INDEX "usage_intervals_endEventId_key" ON "usage_intervals"("endEventId");

-- CreateIndex
CREATE INDEX "usage_intervals_accountId_startedAt_idx" ON "usage_intervals"("accountId", "startedAt");

-- CreateIndex
CREATE INDEX "usage_intervals_resourceKind_resourceId_idx" ON "usage_intervals"("resourceKind", "resourceId");

-- CreateIndex
CREATE INDEX "usage_intervals_endedAt_idx" ON "usage_intervals"("endedAt");

-- CreateIndex
CREATE INDEX "billing_records_accountId_kind_time_idx" ON "billing_records"("accountId", "kind", "time");

-- CreateIndex
CREATE UNIQUE INDEX "billing_records_accountId_kind_time_podId_endpointId_gpuTyp_key" ON "billing_records"("accountId", "kind", "time", "podId", "endpointId", "gpuTypeId", "networkVolumeId");

-- CreateIndex
CREATE INDEX "webhook_deliveries_accountId_idx" ON "webhook_deliveries"("accountId");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpointId_idx" ON "webhook_deliveries"("endpointId");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_nextAttemptAt_idx" ON "webhook_deliveries"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_jobId_url_key" ON "webhook_deliveries"("jobId", "url");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "container_registry_auths" ADD CONSTRAINT "container_registry_auths_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "templates" ADD CONSTRAINT "templates_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "templates" ADD CONSTRAINT "templates_containerRegistryAuthId_fkey" FOREIGN KEY ("containerRegistryAuthId") REFERENCES "container_registry_auths"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "network_volumes" ADD CONSTRAINT "network_volumes_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_templateId_fkey" FOREIGN KEY ("templateId") REFERENCES "templates"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_networkVolumeId_fkey" FOREIGN KEY ("networkVolumeId") REFERENCES "network_volumes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pods" ADD CONSTRAINT "pods_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pods" ADD CONSTRAINT "pods_templateId_fkey" FOREIGN KEY ("templateId") REFERENCES "templates"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pods" ADD CONSTRAINT "pods_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pods" ADD CONSTRAINT "pods_machineId_fkey" FOREIGN KEY ("machineId") REFERENCES "machines"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pods" ADD CONSTRAINT "pods_networkVolumeId_fkey" FOREIGN KEY ("networkVolumeId") REFERENCES "network_volumes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pods" ADD CONSTRAINT "pods_containerRegistryAuthId_fkey" FOREIGN KEY ("containerRegistryAuthId") REFERENCES "container_registry_auths"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "savings_plans" ADD CONSTRAINT "savings_plans_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "savings_plans" ADD CONSTRAINT "savings_plans_podId_fkey" FOREIGN KEY ("podId") REFERENCES "pods"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_intervals" ADD CONSTRAINT "usage_intervals_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "billing_records" ADD CONSTRAINT "billing_records_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
