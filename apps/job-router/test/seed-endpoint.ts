import { type DatabaseClient, newId } from '@runplane/db';

/** A serverless endpoint of `accountId` with a template of its own, written straight to the database. */
export async function seedEndpoint(db: DatabaseClient, accountId: string, executionTimeoutMs = 600_000) {
  const template = await db.template.create({
    data: { id: newId(), accountId, name: `tpl-${newId()}`, imageName: 'runplane/echo:1', isServerless: true },
  });
  return db.endpoint.create({
    data: { id: newId(), accountId, name: `ep-${newId()}`, templateId: template.id, executionTimeoutMs },
  });
}
