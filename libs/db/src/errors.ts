import { Prisma } from './generated/prisma/client';

function hasCode(err: unknown, code: string): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === code;
}

/** True when a write failed on a unique constraint (Prisma P2002). */
export function isUniqueViolation(err: unknown): boolean {
  return hasCode(err, 'P2002');
}

/** True when a write failed on a foreign key, e.g. deleting a row still referenced with onDelete: Restrict (P2003). */
export function isForeignKeyViolation(err: unknown): boolean {
  return hasCode(err, 'P2003');
}

/** True when an update/delete by unique key found no row (P2025). */
export function isRecordNotFound(err: unknown): boolean {
  return hasCode(err, 'P2025');
}
