import { DomainError, ValidationError } from '@runplane/contracts';

/**
 * Rewords a domain ValidationError that names a v1 field (`containerRegistryAuthId: ...`) with the v2 name of that
 * field (`registry: ...`), so a v2 caller's `errors` point at what it sent. Other errors pass through unchanged.
 */
export async function withV2FieldNames<T>(renames: Record<string, string>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'VALIDATION_FAILED') throw error;
    const match = /^([A-Za-z]\w*)(: .*)$/s.exec(error.message);
    const renamed = match?.[1] !== undefined ? renames[match[1]] : undefined;
    if (!match || renamed === undefined) throw error;
    throw new ValidationError(`${renamed}${match[2]}`);
  }
}
