import type { z } from "zod";
import type { accountAnswerSchemas } from "./accountAnswers.ts";
import type { MessageId, ValidationErrors } from "./apiErrors.ts";
import type { ApiKeyWithExtrasDto } from "./apiKeys.ts";

/**
 * The bridge's base types: its result union and errors, and the DTOs every group of bridge methods
 * uses (shared/bridge.ts, syncBridge.ts, keyLifecycleBridge.ts import them from here, so that none
 * of those imports another's).
 */

/** Errors of the service, plus the ones only the desktop side can have. */
export type BridgeMessageId =
  | MessageId
  | "UNREACHABLE"
  | "NO_KEYCHAIN"
  | "NOT_SUPPORTED"
  | "INVALID_ARGUMENT"
  /** The call named a profile that is no longer the active one: nothing was done. */
  | "PROFILE_CHANGED";

export interface BridgeError {
  messageId: BridgeMessageId;
  text: string;
  validationErrors?: ValidationErrors;
}

export type BridgeResult<T> = { ok: true; value: T } | { ok: false; error: BridgeError };

/**
 * A key as the renderer sees it: the publicApiKey only as a hint to recognize it. The full value
 * reaches the renderer only when the user creates a key (shown once), or reveals one; in the
 * desktop app copying happens in main without the value passing through the renderer (see
 * CopyResultDto for the browser host).
 */
export type ApiKeyView = Omit<ApiKeyWithExtrasDto, "publicApiKey"> & {
  /** e.g. `f87f52…e7fb`: the first 6 and last 4 characters. */
  publicApiKeyHint: string;
};

/** A key with its publicApiKey, answered once when it is created, or on an explicit reveal. */
export type RevealedApiKey = ApiKeyView & { publicApiKey: string };

/** An account the profile's credentials manage; parentAccountKey null for the profile's own. */
export type AccountDto = z.infer<ReturnType<typeof accountAnswerSchemas>["account"]>;
