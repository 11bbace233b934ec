import { queryInt } from '@runplane/contracts';
import { z } from 'zod';
import { unprocessable } from './problem';

/** Largest and default page size of a v2 list (RunPod's: runpod-python reads only the first page). */
export const MAX_PAGE_SIZE = 1000;

/** `cursor` and `limit`, the query every paginated v2 list accepts (merge it into a list's own query schema). */
export const paginationQuery = z.object({
  cursor: z.string().min(1).max(1024).optional(),
  limit: queryInt(1, MAX_PAGE_SIZE).default(MAX_PAGE_SIZE),
});
/** Parsed `cursor` and `limit`. */
export type PageQuery = z.infer<typeof paginationQuery>;

/** The `pagination` block every paginated v2 list carries, even when everything fits one page. */
export const paginationSchema = z.object({ nextCursor: z.string().nullable(), hasNextPage: z.boolean() });
/** The `pagination` block of a list response. */
export type Pagination = z.infer<typeof paginationSchema>;

/** A list response schema: `{ <key>: [item...], pagination }` (e.g. `{ templates: [...], pagination }`). */
export function listResponseSchema<K extends string, T extends z.ZodType>(key: K, item: T) {
  return z.object({ [key]: z.array(item), pagination: paginationSchema } as { [P in K]: z.ZodArray<T> } & {
    pagination: typeof paginationSchema;
  });
}

/** How one list is paged: its name (a cursor of another list is refused) and each item's unique, stable sort key. */
export interface PageOrder<T> {
  list: string;
  key: (item: T) => string;
}

interface CursorBody {
  l: string;
  a: string;
}

const encodeCursor = (body: CursorBody): string => Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');

/** The key a cursor continues after; a malformed cursor or one from another list is a 422. */
function decodeCursor(cursor: string, list: string): string {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    body = undefined;
  }
  const valid = typeof body === 'object' && body !== null && typeof (body as CursorBody).a === 'string';
  if (!valid || (body as CursorBody).l !== list) {
    throw unprocessable([`cursor: not a cursor of this list (pass the pagination.nextCursor of a ${list} page)`]);
  }
  return (body as CursorBody).a;
}

/**
 * One page of `items` in the stable order of their keys: the items after the cursor's key (an item deleted meanwhile
 * does not shift the next page), at most `limit` of them, and the pagination block. Cursors are opaque to callers.
 */
export function paginate<T>(
  items: readonly T[],
  page: PageQuery,
  order: PageOrder<T>,
): { items: T[]; pagination: Pagination } {
  const sorted = [...items].sort((a, b) => compare(order.key(a), order.key(b)));
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, order.list);
  const rest = after === undefined ? sorted : sorted.filter((item) => compare(order.key(item), after) > 0);
  const pageItems = rest.slice(0, page.limit);
  const hasNextPage = rest.length > pageItems.length;
  const last = pageItems[pageItems.length - 1];
  const nextCursor = hasNextPage && last !== undefined ? encodeCursor({ l: order.list, a: order.key(last) }) : null;
  return { items: pageItems, pagination: { nextCursor, hasNextPage } };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where a list ordered by creation time and id stands: the row a cursor's key names. */
export interface CreatedPosition {
  createdAt: Date;
  id: string;
}

/** The key `<createdAt>|<id>` of an item of a list ordered by creation time (a Date, or its ISO text) and id. */
function createdKey(item: { createdAt: Date | string; id: string }): string {
  const createdAt = item.createdAt instanceof Date ? item.createdAt.toISOString() : item.createdAt;
  return `${createdAt}|${item.id}`;
}

/** The position a key `<createdAt>|<id>` names; a key of another shape is a 422 naming the list. */
function createdPosition(key: string, list: string): CreatedPosition {
  const bar = key.indexOf('|');
  const createdAt = new Date(key.slice(0, bar));
  if (bar < 0 || Number.isNaN(createdAt.getTime())) {
    throw unprocessable([`cursor: not a cursor of this list (pass the pagination.nextCursor of a ${list} page)`]);
  }
  return { createdAt, id: key.slice(bar + 1) };
}

/**
 * One page of a list the database pages itself, oldest first (by creation time, then id), with the same cursors as
 * {@link paginate}: `read` returns, in that order, at most `take` items after the position the cursor names
 * (undefined for the first page). One item beyond the page is read to tell whether another page follows.
 */
export async function pageByCreation<T extends { createdAt: Date | string; id: string }>(
  page: PageQuery,
  list: string,
  read: (after: CreatedPosition | undefined, take: number) => Promise<T[]>,
): Promise<{ items: T[]; pagination: Pagination }> {
  const after = page.cursor === undefined ? undefined : createdPosition(decodeCursor(page.cursor, list), list);
  const rows = await read(after, page.limit + 1);
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  const hasNextPage = rows.length > items.length;
  const nextCursor = hasNextPage && last !== undefined ? encodeCursor({ l: list, a: createdKey(last) }) : null;
  return { items, pagination: { nextCursor, hasNextPage } };
}
