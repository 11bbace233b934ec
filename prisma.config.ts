import { defineConfig } from 'prisma/config';

/**
 * Prisma CLI configuration. `DATABASE_URL` names the database that migrate commands act on; generate
 * needs no database, so a local default keeps `npm ci` working without one.
 */
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/runplane' },
});
