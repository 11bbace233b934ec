import type { SshKeysRepository } from '@runplane/accounts';
import { parseInput } from '@runplane/http';
import { updateSshKeysRequest } from '../v2/account/account.schemas';
import type { LegacyContext } from './legacy-context';

/**
 * `updateUserSettings(input: {pubKey})`: the account's SSH keys, one authorized_keys line each, blank lines between
 * them ignored (runpodctl joins keys with "\n\n", runpod-python with "\n"). The keys are checked and replaced as
 * `PUT /v2/account/ssh-keys` does, with its messages.
 */
export function accountMutations(sshKeys: SshKeysRepository) {
  return {
    updateUserSettings: async (
      { input }: { input?: { pubKey?: string | null } | null },
      { accountId }: LegacyContext,
    ) => {
      const lines = (input?.pubKey ?? '')
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
      const { keys } = parseInput(updateSshKeysRequest, { keys: lines });
      const saved = await sshKeys.replace(accountId, keys);
      return { id: accountId, pubKey: saved.join('\n') };
    },
  };
}
