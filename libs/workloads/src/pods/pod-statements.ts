// One Pod read by id in one raw statement, for the single-Pod reads of v1 and v2: Prisma's runtime only passes such a
// statement through (its parameters in, each column's value out, typed as for the model), where the query compiler's
// select of the same columns maps every column and relation itself, at about twice the gateway's CPU per read.
// Column names come from the repository's selects and PLAN_COLUMNS, so the rows keep Prisma's types.
import { Prisma, type SavingsPlan } from '@runplane/db';

/** A savings plan's columns, read beside its Pod's as `plan.<column>` (see {@link podById}). */
const PLAN_COLUMNS = [
  'id',
  'accountId',
  'podId',
  'gpuTypeId',
  'costPerHr',
  'startTime',
  'endTime',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof SavingsPlan)[];

/** The columns a read selects, as a Prisma select of plain columns (`{ id: true, ... }`). */
type Columns = Readonly<Record<string, true>>;

/** A row of {@link podById} with plans: the Pod's columns, and one savings plan's (all null when it has none). */
export type PodWithPlansRow<Pod> = Pod & { [C in (typeof PLAN_COLUMNS)[number] as `plan.${C}`]: SavingsPlan[C] | null };

/**
 * The statement that reads the account's Pod `id`: its `columns`, and with `withPlans` its savings plans, one row per
 * plan oldest first (one row with null plan columns when it has none; read them with {@link podWithPlans}). No rows
 * when the account has no such Pod. Its text is built here, once; each read only binds its parameters.
 */
export function podById(
  columns: Columns,
  withPlans: boolean,
): (where: { accountId: string; id: string }) => Prisma.Sql {
  const pod = Object.keys(columns).map((column) => `p."${column}"`);
  const plans = withPlans ? PLAN_COLUMNS.map((column) => `s."${column}" AS "plan.${column}"`) : [];
  const from = withPlans ? `"pods" p LEFT JOIN "savings_plans" s ON s."podId" = p."id"` : `"pods" p`;
  const select = Prisma.raw(`SELECT ${[...pod, ...plans].join(', ')} FROM ${from}`);
  const order = withPlans ? Prisma.sql` ORDER BY s."startTime"` : Prisma.empty;
  return ({ accountId, id }) => Prisma.sql`${select} WHERE p."id" = ${id} AND p."accountId" = ${accountId}${order}`;
}

/** The Pod of {@link podById}'s rows (with plans) and its savings plans, or null when there are no rows. */
export function podWithPlans<Pod>(
  rows: PodWithPlansRow<Pod>[],
  columns: Columns,
): (Pod & { savingsPlans: SavingsPlan[] }) | null {
  const [first] = rows;
  if (!first) return null;
  const pod: Record<string, unknown> = {};
  for (const column of Object.keys(columns)) pod[column] = first[column as keyof Pod];
  const savingsPlans = rows
    .filter((row) => row['plan.id'] !== null)
    .map((row) => Object.fromEntries(PLAN_COLUMNS.map((column) => [column, row[`plan.${column}`]])) as SavingsPlan);
  return { ...(pod as Pod), savingsPlans };
}
