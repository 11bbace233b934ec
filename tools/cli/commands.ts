import type { AccountsService, ApiKeysService, WorkerTokenSummary, WorkerTokensService } from '@runplane/accounts';
import { loadCatalogOverrides, seedCatalog } from '@runplane/catalog';
import type { ApiKeyDto, ApiKeyScope } from '@runplane/contracts';
import { applyMigrations, type DbClient } from '@runplane/db';
import { formatTable } from './format';

/** Where command output goes: results on `out`, notes for humans on `err`. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** What the commands work on. */
export interface CliContext extends CliIo {
  db: DbClient;
  databaseUrl: string;
  accounts: AccountsService;
  apiKeys: ApiKeysService;
  workerTokens: WorkerTokensService;
}

/** Raised for operator mistakes the CLI reports without a stack trace. */
export class CliError extends Error {}

/** `account create`: prints the new account's id. */
export async function createAccount(ctx: CliContext, name: string): Promise<void> {
  const account = await ctx.accounts.create({ name });
  ctx.out(account.id);
}

/** `account list`: a table, or JSON with --json. */
export async function listAccounts(ctx: CliContext, json: boolean): Promise<void> {
  const accounts = await ctx.accounts.list();
  if (json) return ctx.out(JSON.stringify(accounts, null, 2));
  ctx.out(
    formatTable(
      ['ID', 'NAME', 'CREATED'],
      accounts.map((a) => [a.id, a.name, a.createdAt]),
    ),
  );
}

/** `apikey create`: prints the secret, which is shown this once only. */
export async function createApiKey(
  ctx: CliContext,
  input: { account: string; name: string; scope: ApiKeyScope; endpoints: string[] },
): Promise<void> {
  await requireAccount(ctx, input.account);
  const allowedEndpointIds = input.endpoints.length > 0 ? input.endpoints : undefined;
  const { apiKey, secret } = await ctx.apiKeys.create(input.account, {
    name: input.name,
    scope: input.scope,
    allowedEndpointIds,
  });
  ctx.err(`created API key ${apiKey.id} (${apiKey.prefix}…, scope ${apiKey.scope}); the secret is shown only now:`);
  ctx.out(secret);
}

function keyRow(key: ApiKeyDto): string[] {
  return [
    key.id,
    key.name,
    key.prefix,
    key.scope,
    key.disabled ? 'disabled' : 'enabled',
    key.allowedEndpointIds.join(',') || '-',
    key.lastUsedAt ?? '-',
  ];
}

/** `apikey list`: the account's keys (never their secrets). */
export async function listApiKeys(ctx: CliContext, accountId: string, json: boolean): Promise<void> {
  await requireAccount(ctx, accountId);
  const keys = await ctx.apiKeys.list(accountId);
  if (json) return ctx.out(JSON.stringify(keys, null, 2));
  ctx.out(formatTable(['ID', 'NAME', 'PREFIX', 'SCOPE', 'STATE', 'ENDPOINTS', 'LAST USED'], keys.map(keyRow)));
}

/** `apikey disable|enable`: flips a key; the owning account is looked up when not given. */
export async function setApiKeyDisabled(
  ctx: CliContext,
  keyId: string,
  accountId: string | undefined,
  disabled: boolean,
): Promise<void> {
  const owner = accountId ?? (await findKeyOwner(ctx, keyId));
  const key = await ctx.apiKeys.update(owner, keyId, { disabled });
  ctx.out(`${key.id} ${key.disabled ? 'disabled' : 'enabled'}`);
}

/** `worker-token create`: prints a token for one worker of an endpoint as the last line (shown only now). */
export async function createWorkerToken(ctx: CliContext, input: { endpoint: string; worker: string }): Promise<void> {
  const { token, identity } = await ctx.workerTokens.issue(input.endpoint, input.worker);
  ctx.err(
    `created a worker token for worker ${identity.workerId} of endpoint ${identity.endpointId}; it is shown only now:`,
  );
  ctx.out(token);
}

function workerTokenRow(token: WorkerTokenSummary): string[] {
  const state = token.revokedAt ? 'revoked' : 'live';
  return [token.id, token.workerId, state, token.createdAt.toISOString(), token.revokedAt?.toISOString() ?? '-'];
}

/** `worker-token list`: an endpoint's tokens, live and revoked (never the tokens themselves). */
export async function listWorkerTokens(ctx: CliContext, endpointId: string, json: boolean): Promise<void> {
  const tokens = await ctx.workerTokens.list(endpointId);
  if (json) return ctx.out(JSON.stringify(tokens, null, 2));
  ctx.out(formatTable(['ID', 'WORKER', 'STATE', 'CREATED', 'REVOKED'], tokens.map(workerTokenRow)));
}

/**
 * `worker-token revoke`: one token by id, or every live token of a worker (--endpoint and --worker). The job-router
 * that revokes stops accepting at once; other processes within their credential-cache window (5 s).
 */
export async function revokeWorkerTokens(
  ctx: CliContext,
  target: { tokenId?: string; endpoint?: string; worker?: string },
): Promise<void> {
  const byWorker = target.endpoint !== undefined || target.worker !== undefined;
  if (target.tokenId !== undefined && byWorker)
    throw new CliError('give a token id, or --endpoint and --worker, not both');
  if (target.tokenId !== undefined) {
    const token = await ctx.workerTokens.revokeToken(target.tokenId);
    return ctx.out(`${token.id} revoked`);
  }
  if (target.endpoint === undefined || target.worker === undefined) {
    throw new CliError('give a token id, or both --endpoint and --worker');
  }
  const count = await ctx.workerTokens.revokeWorker(target.endpoint, target.worker);
  ctx.out(`revoked ${count} token${count === 1 ? '' : 's'} of worker ${target.worker} of endpoint ${target.endpoint}`);
}

/** `migrate`: applies pending migrations. */
export async function migrate(ctx: CliContext): Promise<void> {
  await applyMigrations(ctx.databaseUrl);
  ctx.out('migrations applied');
}

/** `seed`: upserts the catalog, with overrides from a file when given. */
export async function seed(ctx: CliContext, file: string | undefined): Promise<void> {
  const overrides = file === undefined ? undefined : await loadCatalogOverrides(file);
  await seedCatalog(ctx.db, overrides);
  ctx.out(file === undefined ? 'catalog seeded' : `catalog seeded with overrides from ${file}`);
}

async function requireAccount(ctx: CliContext, accountId: string): Promise<void> {
  if ((await ctx.accounts.findById(accountId)) === null) throw new CliError(`account ${accountId} not found`);
}

/** Keys are tenant-scoped, so an operator who only has a key id is helped by a search over accounts. */
async function findKeyOwner(ctx: CliContext, keyId: string): Promise<string> {
  for (const account of await ctx.accounts.list()) {
    if ((await ctx.apiKeys.list(account.id)).some((key) => key.id === keyId)) return account.id;
  }
  throw new CliError(`API key ${keyId} not found`);
}
