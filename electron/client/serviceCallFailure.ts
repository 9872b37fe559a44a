import type { ValidationErrors } from "../../shared/apiErrors.ts";
import type { BridgeMessageId } from "../../shared/bridge.ts";

/**
 * A call to a key service that failed: the service's error answer (its messageId, text and
 * validationErrors, with the HTTP status and Retry-After), or no usable answer (UNREACHABLE; an
 * answer that is not the API, GENERAL_ERROR). Thrown by the clients of electron/client; the desktop
 * core answers it to the renderer as the bridge's error (main/core/bridgeErrors.ts).
 */
export class ServiceCallFailure extends Error {
  readonly messageId: BridgeMessageId;
  /** The service's text (the same as `message`). */
  readonly text: string;
  readonly validationErrors: ValidationErrors | undefined;
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
    this.name = "ServiceCallFailure";
    this.messageId = messageId;
    this.text = text;
    this.validationErrors = validationErrors;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}
