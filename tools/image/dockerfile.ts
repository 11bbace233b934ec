/**
 * Reads the parts of the repository's Dockerfile that decide the image's file tree: each stage's WORKDIR,
 * COPY and RUN lines. tools/image/assemble.ts builds the same tree from them, so the two cannot drift.
 */

/** `COPY [--from=<stage>] <source>… <destination>`. */
export interface CopyInstruction {
  from: string | undefined;
  sources: string[];
  destination: string;
}

/** One `FROM … AS <name>` stage. */
export interface DockerStage {
  name: string;
  workdir: string;
  copies: CopyInstruction[];
  runs: string[];
  /** `ENV <key>=<value>…` settings, in the `key=value` form only. */
  env: Record<string, string>;
  /** `CMD ["…", …]` (the exec form only), if the stage has one. */
  cmd?: string[];
}

/** Joins continued lines (trailing backslash) and drops comments and blank lines. */
export function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    lines.push(`${pending}${line}`.trim());
    pending = '';
  }
  if (pending !== '') lines.push(pending.trim());
  return lines;
}

function parseCopy(args: string[]): CopyInstruction {
  let from: string | undefined;
  const paths: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('--from=')) from = arg.slice('--from='.length);
    else if (arg.startsWith('--'))
      throw new Error(`unsupported COPY flag ${arg} (tools/image/assemble.ts cannot mirror it)`);
    else paths.push(arg);
  }
  const destination = paths.pop();
  if (destination === undefined || paths.length === 0)
    throw new Error(`COPY needs a source and a destination: ${args.join(' ')}`);
  return { from, sources: paths, destination };
}

function parseEnv(args: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new Error(`ENV must use the key=value form: ${args.join(' ')}`);
    env[arg.slice(0, eq)] = arg.slice(eq + 1);
  }
  return env;
}

/** `CMD ["node", "…"]`: the exec form, a JSON array of strings. */
function parseCmd(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((word): word is string => typeof word === 'string'))
    throw new Error(`CMD must use the exec form (a JSON array of strings): ${text}`);
  return parsed;
}

/**
 * The V8 and Node flags of the image's command, `CMD ["node", <flags>…, "dist/apps/<app>/main.js"]`: every service
 * runs with them, whichever script the command (or the chart's args) names.
 */
export function nodeFlagsOf(cmd: string[] | undefined): string[] {
  if (cmd === undefined || cmd[0] !== 'node' || cmd.length < 2)
    throw new Error(`the image's CMD must be ["node", <flags>…, <script>]: ${JSON.stringify(cmd)}`);
  return cmd.slice(1, -1);
}

/** The Dockerfile's stages in order; the last one is the image. */
export function parseDockerfile(text: string): DockerStage[] {
  const stages: DockerStage[] = [];
  for (const line of logicalLines(text)) {
    const [keyword = '', ...args] = line.split(/\s+/);
    const instruction = keyword.toUpperCase();
    if (instruction === 'FROM') {
      const as = args.findIndex((arg) => arg.toUpperCase() === 'AS');
      stages.push({
        name: as >= 0 ? (args[as + 1] ?? '') : String(stages.length),
        workdir: '/',
        copies: [],
        runs: [],
        env: {},
      });
      continue;
    }
    const stage = stages[stages.length - 1];
    if (stage === undefined) continue; // ARG before the first FROM
    if (instruction === 'WORKDIR') stage.workdir = args.join(' ');
    else if (instruction === 'COPY') stage.copies.push(parseCopy(args));
    else if (instruction === 'RUN') stage.runs.push(line.slice(keyword.length).trim());
    else if (instruction === 'ENV') Object.assign(stage.env, parseEnv(args));
    else if (instruction === 'CMD') stage.cmd = parseCmd(line.slice(keyword.length).trim());
  }
  return stages;
}
