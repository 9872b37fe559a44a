import { DEFAULT_MAX_ANSWER_BYTES } from "../client/boundedAnswer.ts";
import { DEFAULT_TIMEOUT_MS } from "../client/keyServiceClient.ts";
import { remoteAllowList } from "../sync/remoteAllowList.ts";
import type { SyncEngineOptions } from "../sync/syncEngine.ts";
import { type CliOptions, parseBoundedInteger, UsageError } from "./cliArgs.ts";

/**
 * serve's options for the sync engine's calls to remotes (docs/configuration.md): each flag wins
 * over its KEY_SERVICE_* variable, and a bad value stops the start with a usage error rather than
 * silently running without the limit.
 */
export const SYNC_SERVE_OPTIONS = {
  "sync-remote-allow": { type: "string", multiple: true },
  "sync-max-answer-mb": { type: "string" },
  "sync-request-timeout": { type: "string" },
} satisfies CliOptions;

const MAX_ANSWER_MB = 4096;
const MAX_TIMEOUT_S = 3600;
const MEGABYTE = 1024 * 1024;

export function syncServeOptions(
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
  env: NodeJS.ProcessEnv,
): SyncEngineOptions {
  const allow =
    (values["sync-remote-allow"] as string[] | undefined) ??
    env.KEY_SERVICE_SYNC_REMOTE_ALLOW?.split(",")
      .map((pattern) => pattern.trim())
      .filter((pattern) => pattern !== "");
  const mb = parseBoundedInteger(
    { name: "--sync-max-answer-mb", value: values["sync-max-answer-mb"] as string | undefined },
    { name: "KEY_SERVICE_SYNC_MAX_ANSWER_MB", value: env.KEY_SERVICE_SYNC_MAX_ANSWER_MB },
    { min: 1, max: MAX_ANSWER_MB },
    DEFAULT_MAX_ANSWER_BYTES / MEGABYTE,
  );
  const seconds = parseBoundedInteger(
    { name: "--sync-request-timeout", value: values["sync-request-timeout"] as string | undefined },
    { name: "KEY_SERVICE_SYNC_REQUEST_TIMEOUT", value: env.KEY_SERVICE_SYNC_REQUEST_TIMEOUT },
    { min: 1, max: MAX_TIMEOUT_S },
    DEFAULT_TIMEOUT_MS / 1000,
  );
  const options: SyncEngineOptions = {
    maxAnswerBytes: mb * MEGABYTE,
    remoteTimeoutMs: seconds * 1000,
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
