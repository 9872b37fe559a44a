import { ServiceCallFailure } from "../client/serviceCallFailure.ts";
import { scrubRemoteText } from "./remoteText.ts";

/**
 * What a failed call to the remote means for the sync:
 * - `credentials` (401): pause the link until the user gives credentials again;
 * - `throttled` (429): stop this run, retry after the remote's Retry-After (or the backoff);
 * - `unavailable` (no answer, 5xx, 408, an answer that is not the API): stop this run,
 *   retry with exponential backoff;
 * - `refused` (any other 4xx): this one operation failed; the others go on.
 */
export type RemoteFailure =
  | { kind: "credentials"; text: string }
  | { kind: "throttled"; text: string; retryAfterMs: number | undefined }
  | { kind: "unavailable"; text: string }
  | { kind: "refused"; text: string; status: number };

/**
 * The failure's kind and the text kept for it: the status, the remote's messageId and its text with
 * identifiers scrubbed (remoteText.ts), never more, since the caller who reads it may not see the
 * accounts the remote talks about.
 */
export function classifyRemoteFailure(error: unknown): RemoteFailure {
  if (!(error instanceof ServiceCallFailure)) {
    return {
      kind: "unavailable",
      text: scrubRemoteText(error instanceof Error ? error.message : String(error)),
    };
  }
  const { status } = error;
  const { messageId } = error;
  const text = scrubRemoteText(error.text);
  const said = `HTTP ${status} ${messageId}: ${text}`;
  if (status === 401) return { kind: "credentials", text: `the remote refused the credentials (${said})` };
  if (status === 429)
    return {
      kind: "throttled",
      text: `the remote throttles requests (${said})`,
      retryAfterMs: error.retryAfterMs,
    };
  if (status === undefined || status >= 500 || status === 408 || status < 400)
    return { kind: "unavailable", text };
  // A remote with another error body: its status is all we can tell.
  return {
    kind: "refused",
    text: messageId === "GENERAL_ERROR" ? `the remote answered HTTP ${status}` : said,
    status,
  };
}

/** @internal Exported for tests. */
export const MIN_BACKOFF_MS = 1_000;
/** @internal Exported for tests. */
export const MAX_BACKOFF_MS = 5 * 60_000;

/** Exponential backoff after `failures` failed runs in a row (1 s, 2 s, 4 s … 5 min), ±20 % jitter. */
export function backoffMs(failures: number, random = Math.random): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 20);
  const delay = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** exponent);
  return Math.round(delay * (0.8 + 0.4 * random()));
}

/** Thrown to end the run: the failure concerns the link (credentials, throttling, no answer), not one key. */
export class LinkFailure extends Error {
  readonly failure: ReturnType<typeof classifyRemoteFailure>;
  constructor(failure: ReturnType<typeof classifyRemoteFailure>) {
    super(failure.text);
    this.failure = failure;
  }
}
