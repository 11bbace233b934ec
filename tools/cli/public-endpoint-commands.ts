import { publicEndpointCreateInput, publicEndpointUpdateInput, type PublicEndpointDto } from '@runplane/contracts';
import { EndpointsRepository, PublicEndpointsRepository, PublicEndpointsService } from '@runplane/endpoints';
import { Command } from 'commander';
import type { z } from 'zod';
import { CliError, type CliContext } from './commands';
import { formatTable } from './format';

/** Opens the database context for one command (program.ts's WithContext, without importing it back). */
type WithContext = (run: (ctx: CliContext) => Promise<void>) => Promise<void>;

/** Options of `public-endpoint publish` and `update`, as commander gives them. */
interface PublicationOptions {
  account: string;
  endpoint?: string;
  name?: string;
  description?: string;
  input?: string;
  output?: string;
  price?: string;
}

const service = (ctx: CliContext): PublicEndpointsService =>
  new PublicEndpointsService(new PublicEndpointsRepository(ctx.db), new EndpointsRepository(ctx.db));

function json(option: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliError(`--${option}: not valid JSON`);
  }
}

/** `--price 0.002` (USD per job), or `--price none` for execution time x the worker's price. */
function price(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'none') return null;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new CliError('--price: a number of USD, or "none"');
  return value;
}

function parse<S extends z.ZodType>(schema: S, input: Record<string, unknown>): z.infer<S> {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new CliError(`${issue?.path.join('.') ?? 'input'}: ${issue?.message ?? 'invalid'}`);
}

function fieldsOf(opts: PublicationOptions): Record<string, unknown> {
  return {
    description: opts.description,
    input: json('input', opts.input),
    output: json('output', opts.output),
    pricePerRequest: price(opts.price),
  };
}

const row = (p: PublicEndpointDto): string[] => [
  p.name,
  p.endpointId,
  p.pricePerRequest === null ? 'execution time' : `$${p.pricePerRequest}/request`,
  p.description || '-',
];

/** `public-endpoint publish`: prints the publication as JSON. */
async function publish(ctx: CliContext, opts: PublicationOptions): Promise<void> {
  const input = parse(publicEndpointCreateInput, { name: opts.name, endpointId: opts.endpoint, ...fieldsOf(opts) });
  ctx.out(JSON.stringify(await service(ctx).publish(opts.account, input), null, 2));
}

/** `public-endpoint update <name>`: prints the publication as JSON. */
async function update(ctx: CliContext, name: string, opts: PublicationOptions): Promise<void> {
  const input = parse(publicEndpointUpdateInput, fieldsOf(opts));
  ctx.out(JSON.stringify(await service(ctx).update(opts.account, name, input), null, 2));
}

/** `public-endpoint list`: an account's publications, or every public model of the installation. */
async function list(ctx: CliContext, opts: { account?: string; json: boolean }): Promise<void> {
  if (opts.account === undefined) {
    const { models } = await service(ctx).models();
    return ctx.out(JSON.stringify({ models }, null, 2));
  }
  const publications = await service(ctx).list(opts.account);
  if (opts.json) return ctx.out(JSON.stringify(publications, null, 2));
  ctx.out(formatTable(['NAME', 'ENDPOINT', 'PRICE', 'DESCRIPTION'], publications.map(row)));
}

function describedOptions(command: Command): Command {
  return command
    .option('--description <text>', 'what the model does')
    .option('--input <json>', 'JSON object describing `input` (e.g. a JSON Schema)')
    .option('--output <json>', 'JSON object describing `output`')
    .option('--price <usd>', 'USD per job, or "none" to bill execution time x the worker price');
}

/** `runplane public-endpoint ...`: publish an account's queue endpoint under a model name every account may call. */
export function publicEndpointCommands(withContext: WithContext): Command {
  const group = new Command('public-endpoint').description('publish endpoints as public models (/v2/<model>/...)');
  describedOptions(
    group
      .command('publish')
      .description("publish one of an account's queue endpoints under a model name, unique in the installation")
      .requiredOption('--account <id>', 'owning account id')
      .requiredOption('--endpoint <id>', 'endpoint id')
      .requiredOption('--name <model>', 'model name callers put in /v2/<model>/run'),
  ).action((opts: PublicationOptions) => withContext((ctx) => publish(ctx, opts)));
  describedOptions(
    group
      .command('update <name>')
      .description("change a public model's description, input and output description or price")
      .requiredOption('--account <id>', 'owning account id'),
  ).action((name: string, opts: PublicationOptions) => withContext((ctx) => update(ctx, name, opts)));
  group
    .command('list')
    .description("an account's public endpoints (--account), or every public model as JSON")
    .option('--account <id>', 'owning account id')
    .option('--json', 'print JSON', false)
    .action((opts: { account?: string; json: boolean }) => withContext((ctx) => list(ctx, opts)));
  group
    .command('unpublish <name>')
    .description('unpublish a model: calls answer 404 and the name is free again')
    .requiredOption('--account <id>', 'owning account id')
    .action((name: string, opts: { account: string }) =>
      withContext(async (ctx) => {
        await service(ctx).unpublish(opts.account, name);
        ctx.out(`${name} unpublished`);
      }),
    );
  return group;
}
