import { z } from 'zod';

/** One authorized_keys line: `<type> <base64-key> [comment]` (RunPod's pattern). */
const SSH_KEY = /^(ssh|ecdsa|sk)-[^\s]+ [^\s]+([ \t][^\n\r]*)?$/;

/** Body of `PUT /v2/account/ssh-keys` (RunPod's UpdateSshKeysRequest): the full set, replacing the old one. */
export const updateSshKeysRequest = z.strictObject({
  keys: z
    .array(z.string().max(16_384).regex(SSH_KEY, 'must be an authorized_keys line: <type> <base64-key> [comment]'))
    .max(100),
});
/** Parsed body of `PUT /v2/account/ssh-keys`. */
export type UpdateSshKeysRequest = z.infer<typeof updateSshKeysRequest>;

/** The account's SSH public keys (RunPod's SshKeys). */
export const sshKeysSchema = z.object({ keys: z.array(z.string()) });
/** The account's SSH public keys. */
export type SshKeys = z.infer<typeof sshKeysSchema>;
