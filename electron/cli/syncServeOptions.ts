import { DEFAULT_MAX_ANSWER_BYTES } from "../client/boundedAnswer.ts";
import { DEFAULT_TIMEOUT_MS } from "../client/keyServiceClient.ts";
import { remoteAllowList } from "../sync/remoteAllowList.ts";
import type { SyncEngineOptions } from "../sync/syncEngine.ts";
import { type CliOptions, UsageError } from "./cliArgs.ts";

/**
 * serve's options for the sync engine's calls to remotes (README "Configuration"): each flag wins
 * over its KEY_SERVICE_* variable, and a bad value stops the start with a usage error rather than
 * silently running without the limit.
 */
export const SYNC_SERVE_OPTIONS = {
  "sync-remote-allow": { type: "string", multiple: true },
  "sync-max-answer-mb": { type: "string" },
  "sync-request-timeout": { type: "string" },
} satisfies CliOptions;

export const SYNC_SERVE_USAGE =
  "[--sync-remote-allow URL]... [--sync-max-answer-mb 256] [--sync-request-timeout 10]";

const MAX_ANSWER_MB = 4096;
const MAX_TIMEOUT_S = 3600;

export function syncServeOptions(
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
  env: NodeJS.ProcessEnv,
): SyncEngineOptions {
  const allow =
    (values["sync-remote-allow"] as string[] | undefined) ??
    env.KEY_SERVICE_SYNC_REMOTE_ALLOW?.split(",")
      .map((pattern) => pattern.trim())
      .filter((pattern) => pattern !== "");
  const mb = wholeNumber(
    (values["sync-max-answer-mb"] as string | undefined) ?? env.KEY_SERVICE_SYNC_MAX_ANSWER_MB,
    "--sync-max-answer-mb (KEY_SERVICE_SYNC_MAX_ANSWER_MB)",
    MAX_ANSWER_MB,
  );
  const seconds = wholeNumber(
    (values["sync-request-timeout"] as string | undefined) ?? env.KEY_SERVICE_SYNC_REQUEST_TIMEOUT,
    "--sync-request-timeout (KEY_SERVICE_SYNC_REQUEST_TIMEOUT)",
    MAX_TIMEOUT_S,
  );
  const options: SyncEngineOptions = {
    maxAnswerBytes: mb === undefined ? DEFAULT_MAX_ANSWER_BYTES : mb * 1024 * 1024,
    remoteTimeoutMs: seconds === undefined ? DEFAULT_TIMEOUT_MS : seconds * 1000,
  };
  if (allow && allow.length > 0) {
    try {
      options.remoteAllow = remoteAllowList(allow);
    } catch (error) {
      throw new UsageError(
        `--sync-remote-allow (KEY_SERVICE_SYNC_REMOTE_ALLOW): ${(error as Error).message}`,
      );
    }
  }
  return options;
}

function wholeNumber(value: string | undefined, name: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,7}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new UsageError(`${name} must be a whole number from 1 to ${max}, not "${value}"`);
  }
  return Number(value);
}
