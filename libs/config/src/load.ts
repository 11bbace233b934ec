import { z } from 'zod';

/** One invalid or missing environment variable. */
export interface ConfigIssue {
  variable: string;
  message: string;
}

/** Thrown when the environment does not satisfy an app's config schema; the message names every bad variable. */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    super(`Invalid configuration: ${issues.map((i) => `${i.variable}: ${i.message}`).join('; ')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** Environment shape accepted by the loaders (process.env or a test's plain object). */
export type Env = Record<string, string | undefined>;

/** Exit code for a configuration error (sysexits EX_CONFIG), so orchestrators can tell it from a crash. */
export const CONFIG_ERROR_EXIT_CODE = 78;

function toIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.map((issue) => ({
    variable: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
    message: issue.message,
  }));
}

/** Parse env once against a zod object schema; throws ConfigError whose message names every bad variable. */
export function loadConfig<S extends z.ZodObject>(schema: S, env: Env = process.env): z.infer<S> {
  // Empty strings mean "unset" in env files and Helm values; treat them as missing so defaults apply.
  const cleaned: Env = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = schema.safeParse(cleaned);
  if (!result.success) throw new ConfigError(toIssues(result.error));
  return result.data;
}

/** Same as loadConfig, but on failure writes the problem to stderr and exits with code 78. */
export function loadConfigOrExit<S extends z.ZodObject>(schema: S, env: Env = process.env): z.infer<S> {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(CONFIG_ERROR_EXIT_CODE);
  }
}
