/**
 * A take registered in `<base><ep>:takers` because it found the queue empty (see dispatch.ts): the SUBMIT script of
 * any replica pops the oldest live one and claims its job for it. `<origin>|<takeId>|<expiresAt>|<workerId>`.
 */
export interface TakerEntry {
  /** The replica the take is parked on. */
  origin: string;
  takeId: string;
  /** When its wait ends (ms since the epoch, engine clock). */
  expiresAt: number;
  workerId: string;
}

const SEP = '|';

/** The list entry of a registered take. */
export function encodeTakerEntry(entry: TakerEntry): string {
  return [entry.origin, entry.takeId, entry.expiresAt, entry.workerId].join(SEP);
}

const ENTRY = /^([^|]+)\|([^|]+)\|(\d+)\|(.+)$/s;

/** Reads a registered take; undefined when the entry is malformed. */
export function parseTakerEntry(text: string): TakerEntry | undefined {
  const match = ENTRY.exec(text);
  if (!match) return undefined;
  const [, origin = '', takeId = '', expiresAt = '', workerId = ''] = match;
  return { origin, takeId, expiresAt: Number(expiresAt), workerId };
}

/** Lua `parseTaker(entry)`: origin, takeId, expiresAt (a string of digits), workerId; nil when malformed. */
export const LUA_TAKERS = `
local function parseTaker(entry) return string.match(entry, '^([^${SEP}]+)${SEP}([^${SEP}]+)${SEP}(%d+)${SEP}(.+)$') end
`;
