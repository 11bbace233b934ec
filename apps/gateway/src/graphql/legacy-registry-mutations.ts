import { containerRegistryAuthCreateInput } from '@runplane/contracts';
import { parseInput } from '@runplane/http';
import type { RegistryAuthService } from '@runplane/workloads';
import type { LegacyContext } from './legacy-context';

/**
 * `saveRegistryAuth` and `deleteRegistryAuth` over the service `/v1/containerregistryauth` uses (passwords sealed at
 * rest, the same messages; deleting one a template uses is refused). `deleteRegistryAuth` answers null, a scalar the
 * clients ignore.
 */
export function registryMutations(auths: RegistryAuthService) {
  return {
    saveRegistryAuth: async (
      { input }: { input: { name: string; username: string; password: string } },
      { accountId }: LegacyContext,
    ) => {
      const created = await auths.create(accountId, parseInput(containerRegistryAuthCreateInput, input));
      return { id: created.id, name: created.name };
    },
    deleteRegistryAuth: async ({ registryAuthId }: { registryAuthId: string }, { accountId }: LegacyContext) => {
      await auths.delete(accountId, registryAuthId);
      return null;
    },
  };
}
