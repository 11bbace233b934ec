/**
 * v2's `args` is one string; v1 and the rows keep `dockerStartCmd` as a list of arguments. A string splits at
 * whitespace outside quotes (`'...'` and `"..."` group, `\` escapes the next character), and a list joins with spaces,
 * quoting an argument that is empty or holds whitespace, quotes or backslashes, so split(join(list)) is the list.
 */
export function splitArgs(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i] as string;
    if (quote) {
      if (char === quote) quote = null;
      else if (char === '\\' && quote === '"' && i + 1 < line.length) current += line[++i];
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (char === '\\' && i + 1 < line.length) {
      current += line[++i];
      started = true;
    } else if (/\s/.test(char)) {
      if (started) args.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}

/** The arguments as one v2 `args` string (see splitArgs). */
export function joinArgs(args: readonly string[]): string {
  return args.map((arg) => (arg === '' || /[\s"'\\]/.test(arg) ? `"${arg.replace(/["\\]/g, '\\$&')}"` : arg)).join(' ');
}
