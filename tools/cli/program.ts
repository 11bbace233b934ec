import { API_KEY_SCOPES, type ApiKeyScope } from '@runplane/contracts';
import { Command, Option } from 'commander';
import * as cmd from './commands';
import { publicEndpointCommands } from './public-endpoint-commands';

/** Opens the database context for one command and closes it afterwards. */
export type WithContext = (run: (ctx: cmd.CliContext) => Promise<void>) => Promise<void>;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function accountCommands(withContext: WithContext): Command {
  const account = new Command('account').description('manage accounts');
  account
    .command('create')
    .description('create an account and print its id')
    .requiredOption('--name <name>', 'account name')
    .action((opts: { name: string }) => withContext((ctx) => cmd.createAccount(ctx, opts.name)));
  account
    .command('list')
    .description('list accounts')
    .option('--json', 'print JSON', false)
    .action((opts: { json: boolean }) => withContext((ctx) => cmd.listAccounts(ctx, opts.json)));
  return account;
}

function apiKeyCommands(withContext: WithContext): Command {
  const apikey = new Command('apikey').description('manage API keys');
  apikey
    .command('create')
    .description('create an API key and print its secret (shown only once)')
    .requiredOption('--account <id>', 'owning account id')
    .requiredOption('--name <name>', 'key name')
    .addOption(new Option('--scope <scope>', 'key scope').choices(API_KEY_SCOPES).default('ALL'))
    .option('--endpoint <id>', 'allowed endpoint id (RESTRICTED keys; repeatable)', collect, [])
    .action((opts: { account: string; name: string; scope: ApiKeyScope; endpoint: string[] }) =>
      withContext((ctx) => cmd.createApiKey(ctx, { ...opts, endpoints: opts.endpoint })),
    );
  apikey
    .command('list')
    .description("list an account's API keys (never their secrets)")
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print JSON', false)
    .action((opts: { account: string; json: boolean }) =>
      withContext((ctx) => cmd.listApiKeys(ctx, opts.account, opts.json)),
    );
  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    apikey
      .command(`${name} <id>`)
      .description(`${name} an API key`)
      .option('--account <id>', 'owning account id (looked up when omitted)')
      .action((id: string, opts: { account?: string }) =>
        withContext((ctx) => cmd.setApiKeyDisabled(ctx, id, opts.account, disabled)),
      );
  }
  return apikey;
}

function workerTokenCommands(withContext: WithContext): Command {
  const workerToken = new Command('worker-token').description(
    'manage worker tokens (workers run outside the scheduler)',
  );
  workerToken
    .command('create')
    .description('create a token for one worker of an endpoint and print it as the last line (shown only once)')
    .requiredOption('--endpoint <id>', 'endpoint id')
    .requiredOption('--worker <workerId>', 'worker id the token acts as (RUNPOD_POD_ID)')
    .action((opts: { endpoint: string; worker: string }) => withContext((ctx) => cmd.createWorkerToken(ctx, opts)));
  workerToken
    .command('list')
    .description("list an endpoint's worker tokens, live and revoked (never the tokens)")
    .requiredOption('--endpoint <id>', 'endpoint id')
    .option('--json', 'print JSON', false)
    .action((opts: { endpoint: string; json: boolean }) =>
      withContext((ctx) => cmd.listWorkerTokens(ctx, opts.endpoint, opts.json)),
    );
  workerToken
    .command('revoke [tokenId]')
    .description('revoke one token by id, or every token of a worker with --endpoint and --worker')
    .option('--endpoint <id>', 'endpoint id (with --worker)')
    .option('--worker <workerId>', 'worker id (with --endpoint)')
    .action((tokenId: string | undefined, opts: { endpoint?: string; worker?: string }) =>
      withContext((ctx) => cmd.revokeWorkerTokens(ctx, { tokenId, ...opts })),
    );
  return workerToken;
}

/** The `runplane` operator CLI. */
export function buildProgram(withContext: WithContext, catalogFile: string | undefined): Command {
  const program = new Command('runplane').description('Runplane operator CLI').showHelpAfterError();
  program.addCommand(accountCommands(withContext));
  program.addCommand(apiKeyCommands(withContext));
  program.addCommand(workerTokenCommands(withContext));
  program.addCommand(publicEndpointCommands(withContext));
  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(() => withContext((ctx) => cmd.migrate(ctx)));
  program
    .command('seed')
    .description('seed the catalog (GPU types, CPU flavors, data centers, prices)')
    .option('--file <path>', 'catalog overrides file (default: RUNPLANE_CATALOG_FILE)')
    .action((opts: { file?: string }) => withContext((ctx) => cmd.seed(ctx, opts.file ?? catalogFile)));
  return program;
}
