import type { BridgeError } from "../../../shared/bridge.ts";
import { ServiceCallFailure } from "../../client/serviceCallFailure.ts";
import { CoreFailure } from "./coreFailure.ts";

/**
 * The one mapping of a failure to the bridge's error: what dispatch.ts answers for anything a
 * handler throws, and what the handlers that go on past a failed key (keyBulk, keyRoll) list for
 * it. A key service's failure and the core's own refusal keep their messageId, text and per-field
 * messages; anything else is GENERAL_ERROR with its message (never a stack).
 *
 * A module of its own rather than part of dispatch.ts, which imports every handler: a handler
 * importing dispatch.ts would make an import cycle.
 */
export function toBridgeError(error: unknown): BridgeError {
  if (error instanceof ServiceCallFailure || error instanceof CoreFailure) {
    const { messageId, text, validationErrors } = error;
    return { messageId, text, ...(validationErrors && { validationErrors }) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { messageId: "GENERAL_ERROR", text: `the desktop app failed: ${message}` };
}
