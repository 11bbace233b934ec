import { ValidationError } from '@runplane/contracts';

/**
 * Deepest nesting of arrays and objects a JSON body may have. Whatever walks a parsed body recursively (the NUL guard,
 * zod, `JSON.stringify` when a job is stored) overflows the stack a few thousand levels down; no input of RunPod's
 * APIs comes near this.
 */
export const MAX_JSON_DEPTH = 100;

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether a JSON text nests arrays and objects deeper than `limit`. Reads the text once without parsing it (brackets
 * inside strings do not count), at about half the cost of JSON.parse.
 */
export function jsonDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** The 400 a JSON body nested deeper than MAX_JSON_DEPTH gets, checked before it is parsed; undefined when it is not. */
export function jsonDepthError(text: string): ValidationError | undefined {
  if (!jsonDeeperThan(text, MAX_JSON_DEPTH)) return undefined;
  return new ValidationError(`body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
}
