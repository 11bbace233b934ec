import { ValidationError } from '@runplane/contracts';

/**
 * Splits RunPod's `dockerArgs` string into the argument list templates keep, as a POSIX shell would for words:
 * whitespace separates, single quotes keep everything, double quotes keep everything but `\"` and `\\`, a backslash
 * outside quotes escapes the next character. runpod-python sends e.g. `bash -c "echo ready && sleep 600"`.
 */
export function splitDockerArgs(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  const add = (chars: string | undefined): void => {
    word = (word ?? '') + (chars ?? '');
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quote === "'") {
      if (char === "'") quote = null;
      else add(char);
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) add(text[++i]);
      else add(char);
    } else if (/\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (char === '"' || char === "'") {
      quote = char;
      add('');
    } else {
      add(char === '\\' && i + 1 < text.length ? text[++i] : char);
    }
  }
  if (quote !== null) throw new ValidationError('dockerArgs: unterminated quote');
  if (word !== null) words.push(word);
  return words;
}

/** The argument list as one `dockerArgs` string that splitDockerArgs reads back to the same list. */
export function joinDockerArgs(args: readonly string[]): string {
  return args
    .map((arg) => (arg !== '' && /^[^\s"'\\]+$/.test(arg) ? arg : `"${arg.replace(/["\\]/g, (c) => `\\${c}`)}"`))
    .join(' ');
}
