import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

export class UsageError extends Error {}

export type CliOptions = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;

/** Strict option parsing: unknown options and stray arguments are usage errors, not ignored. */
export function parseOptions<T extends CliOptions>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** --data-dir, else KEY_SERVICE_DATA_DIR, else the per-user data folder. */
export function resolveDataDir(value: string | undefined, env: NodeJS.ProcessEnv): string {
  if (value !== undefined) {
    if (value.trim() === "") throw new UsageError("--data-dir must not be empty");
    return value;
  }
  if (env.KEY_SERVICE_DATA_DIR) return env.KEY_SERVICE_DATA_DIR;
  const base = env.XDG_DATA_HOME || join(homedir(), ".local", "share");
  return join(base, "keydesk", "key-service");
}

export function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`--port must be a number from 0 to 65535 (0 picks a free port), not "${value}"`);
  }
  return Number(value);
}

export function requireOption(value: string | undefined, name: string): string {
  if (value === undefined || value === "") throw new UsageError(`${name} is required`);
  return value;
}

/**
 * A whole number in [min, max] from `--flag`, else from the environment variable (empty counts
 * as unset, as for KEY_SERVICE_DATA_DIR), else the default. A bad value is a usage error naming
 * where it came from, never silently the default.
 */
export function parseBoundedInteger(
  flag: { name: string; value: string | undefined },
  env: { name: string; value: string | undefined },
  range: { min: number; max: number },
  fallback: number,
): number {
  const [source, value] =
    flag.value !== undefined ? [flag.name, flag.value] : env.value ? [env.name, env.value] : [];
  if (source === undefined || value === undefined) return fallback;
  const number = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= range.min && number <= range.max)) {
    throw new UsageError(
      `${source} must be a whole number from ${range.min} to ${range.max}, not "${value}"`,
    );
  }
  return number;
}

/** An on/off switch from its flag, else its environment variable, else the fallback. */
export function parseSwitch(
  flag: { name: string; value: string | undefined },
  env: { name: string; value: string | undefined },
  fallback: boolean,
): boolean {
  const [source, value] =
    flag.value !== undefined ? [flag.name, flag.value] : env.value ? [env.name, env.value] : [];
  if (source === undefined || value === undefined) return fallback;
  if (value === "on") return true;
  if (value === "off") return false;
  throw new UsageError(`${source} must be on or off, not "${value}"`);
}

/** One of a few named values (`--format csv|json`), else the fallback when the option is absent. */
export function parseChoice<C extends string>(
  name: string,
  value: string | undefined,
  choices: readonly C[],
  fallback: C,
): C {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as C;
  throw new UsageError(`${name} must be ${choices.join(" or ")}, not "${value}"`);
}
