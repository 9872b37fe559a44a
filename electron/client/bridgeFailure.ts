import type { ValidationErrors } from "../../shared/apiErrors.ts";
import type { BridgeError, BridgeMessageId } from "../../shared/bridge.ts";

/** A failure that reaches the renderer as a BridgeError: thrown by the client and the core handlers. */
export class BridgeFailure extends Error {
  readonly bridgeError: BridgeError;
  /** The HTTP status of the answer, when the failure is a service's answer. */
  readonly status: number | undefined;
  /** The answer's `Retry-After`, in ms, when it had one. */
  readonly retryAfterMs: number | undefined;

  constructor(
    messageId: BridgeMessageId,
    text: string,
    validationErrors?: ValidationErrors,
    status?: number,
    retryAfterMs?: number,
  ) {
    super(text);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
    this.name = "BridgeFailure";
    this.bridgeError = { messageId, text, ...(validationErrors && { validationErrors }) };
  }
}

/** Any thrown value as a BridgeError: a BridgeFailure as it is, anything else as GENERAL_ERROR (no stack). */
export function toBridgeError(error: unknown): BridgeError {
  if (error instanceof BridgeFailure) return error.bridgeError;
  const message = error instanceof Error ? error.message : String(error);
  return { messageId: "GENERAL_ERROR", text: `the desktop app failed: ${message}` };
}
