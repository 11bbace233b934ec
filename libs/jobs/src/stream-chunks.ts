/** Largest stream chunk handed to a client, in bytes of JSON. */
export const MAX_STREAM_CHUNK_BYTES = 1024 * 1024;

function splitString(text: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  let current = '';
  let currentBytes = 0;
  // Iterate by code point so a piece never ends inside a surrogate pair; JSON quotes/escapes get headroom below.
  for (const char of text) {
    const bytes = Buffer.byteLength(JSON.stringify(char)) - 2;
    if (currentBytes + bytes > maxBytes && current !== '') {
      pieces.push(current);
      current = '';
      currentBytes = 0;
    }
    current += char;
    currentBytes += bytes;
  }
  if (current !== '' || pieces.length === 0) pieces.push(current);
  return pieces;
}

function splitArray(items: unknown[], maxBytes: number): unknown[][] {
  const pieces: unknown[][] = [];
  let current: unknown[] = [];
  let currentBytes = 2;
  for (const item of items) {
    const bytes = Buffer.byteLength(JSON.stringify(item) ?? 'null') + 1;
    if (currentBytes + bytes > maxBytes && current.length > 0) {
      pieces.push(current);
      current = [];
      currentBytes = 2;
    }
    current.push(item);
    currentBytes += bytes;
  }
  pieces.push(current);
  return pieces;
}

/**
 * Splits one streamed output into chunks of at most `maxBytes` of JSON each: a long string into consecutive
 * substrings, a long array into consecutive sub-arrays. Other values (objects, numbers) are never split; an object
 * bigger than the limit is refused by the caller's payload limit instead. Returns the chunks as JSON text.
 */
export function splitStreamOutput(output: unknown, maxBytes = MAX_STREAM_CHUNK_BYTES): string[] {
  const json = JSON.stringify(output) ?? 'null';
  if (Buffer.byteLength(json) <= maxBytes) return [json];
  // Leave room for the quotes or brackets around a piece.
  if (typeof output === 'string') return splitString(output, maxBytes - 2).map((piece) => JSON.stringify(piece));
  if (Array.isArray(output)) return splitArray(output, maxBytes).map((piece) => JSON.stringify(piece));
  return [json];
}
