-- Endpoint type (v2's QUEUE or LOAD_BALANCER) and endpoint releases: one row per endpoint version.

-- CreateEnum
CREATE TYPE "EndpointType" AS ENUM ('QUEUE', 'LOAD_BALANCER');

-- AlterTable
ALTER TABLE "endpoints" ADD COLUMN     "type" "EndpointType" NOT NULL DEFAULT 'QUEUE';

-- CreateTable
CREATE TABLE "endpoint_releases" (
    "id" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "config" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "endpoint_releases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "endpoint_releases_accountId_idx" ON "endpoint_releases"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "endpoint_releases_endpointId_version_key" ON "endpoint_releases"("endpointId", "version");

-- AddForeignKey
ALTER TABLE "endpoint_releases" ADD CONSTRAINT "endpoint_releases_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- What workers of an endpoint's current version run: the endpoint's columns and its template's container settings
-- (env: the template's under the endpoint's own, as the API serves it). Key names are the diff's field names.
CREATE FUNCTION "endpoint_release_config"(e "endpoints") RETURNS JSONB LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'type', e."type", 'templateId', e."templateId", 'computeType', e."computeType",
    'gpuTypeIds', to_jsonb(e."gpuTypeIds"), 'gpuCount', e."gpuCount", 'instanceIds', to_jsonb(e."instanceIds"),
    'dataCenterIds', to_jsonb(e."dataCenterIds"), 'networkVolumeIds', to_jsonb(e."networkVolumeIds"),
    'allowedCudaVersions', to_jsonb(e."allowedCudaVersions"), 'minCudaVersion', e."minCudaVersion",
    'executionTimeoutMs', e."executionTimeoutMs", 'flashboot', e."flashboot",
    'workersMin', e."workersMin", 'workersMax', e."workersMax", 'idleTimeout', e."idleTimeout",
    'scalerType', e."scalerType", 'scalerValue', e."scalerValue",
    'template', jsonb_build_object(
      'imageName', t."imageName", 'dockerStartCmd', to_jsonb(t."dockerStartCmd"),
      'dockerEntrypoint', to_jsonb(t."dockerEntrypoint"), 'containerDiskInGb', t."containerDiskInGb",
      'ports', to_jsonb(t."ports"), 'env', COALESCE(t."env", '{}'::jsonb) || COALESCE(e."env", '{}'::jsonb),
      'containerRegistryAuthId', t."containerRegistryAuthId"))
  FROM (SELECT 1) AS one LEFT JOIN "templates" t ON t."id" = e."templateId"
$$;

-- Ids are 14 lowercase hex characters, in the alphabet of the application's ids. The migration runner splits
-- statements at every semicolon, quoted or not, so the body writes its own as \073.
CREATE FUNCTION "endpoint_record_release"() RETURNS TRIGGER LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO "endpoint_releases" ("id", "endpointId", "accountId", "version", "config")
  VALUES (substr(md5(random()::text || clock_timestamp()::text || NEW."id"), 1, 14), NEW."id", NEW."accountId",
          NEW."version", "endpoint_release_config"(NEW))
  ON CONFLICT ("endpointId", "version") DO NOTHING\073
  RETURN NULL\073
END
';

-- Every path that sets or bumps a version (create, a new template or env, an edit of the template) records it.
CREATE TRIGGER "endpoints_record_created_release" AFTER INSERT ON "endpoints"
  FOR EACH ROW EXECUTE FUNCTION "endpoint_record_release"();
CREATE TRIGGER "endpoints_record_new_release" AFTER UPDATE OF "version" ON "endpoints"
  FOR EACH ROW WHEN (NEW."version" IS DISTINCT FROM OLD."version") EXECUTE FUNCTION "endpoint_record_release"();

-- Endpoints that exist already get their current version as their first release.
INSERT INTO "endpoint_releases" ("id", "endpointId", "accountId", "version", "config")
SELECT substr(md5(random()::text || clock_timestamp()::text || e."id"), 1, 14), e."id", e."accountId", e."version",
       "endpoint_release_config"(e)
FROM "endpoints" e;
