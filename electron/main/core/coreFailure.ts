import type { ValidationErrors } from "../../../shared/apiErrors.ts";
import type { BridgeMessageId } from "../../../shared/bridge.ts";

/**
 * A call the desktop core refuses itself, before or without asking a key service (no such profile,
 * an argument the core checks, no keychain): what the renderer is told. Thrown by the core's
 * handlers; dispatch.ts answers it as the bridge's error (bridgeErrors.ts).
 */
export class CoreFailure extends Error {
  readonly messageId: BridgeMessageId;
  /** What the user reads (the same as `message`). */
  readonly text: string;
  readonly validationErrors: ValidationErrors | undefined;

  constructor(messageId: BridgeMessageId, text: string, validationErrors?: ValidationErrors) {
    super(text);
    this.name = "CoreFailure";
    this.messageId = messageId;
    this.text = text;
    this.validationErrors = validationErrors;
  }
}
