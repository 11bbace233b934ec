import { containerRegistryAuthCreateInput } from '@runplane/contracts';
import { parseInput } from '@runplane/http';
import type { RegistryAuthService } from '@runplane/workloads';
import type { LegacyContext } from './legacy-context';

/** `updateRegistryAuth`'s input: the username and password checked as on create (the same messages). */
const credentialsInput = containerRegistryAuthCreateInput.pick({ username: true, password: true });

/**
 * `saveRegistryAuth`, `updateRegistryAuth` and `deleteRegistryAuth` over the service `/v1/containerregistryauth` uses
 * (passwords sealed at rest, the same messages; deleting one a template uses is refused). `updateRegistryAuth`
 * replaces the username and password and keeps the name. `deleteRegistryAuth` answers null, a scalar the clients
 * ignore.
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
    updateRegistryAuth: async (
      { input }: { input: { id: string; username: string; password: string } },
      { accountId }: LegacyContext,
    ) => {
      const { id, ...credentials } = input;
      const updated = await auths.updateCredentials(accountId, id, parseInput(credentialsInput, credentials));
      return { id: updated.id, name: updated.name };
    },
    deleteRegistryAuth: async ({ registryAuthId }: { registryAuthId: string }, { accountId }: LegacyContext) => {
      await auths.delete(accountId, registryAuthId);
      return null;
    },
  };
}
