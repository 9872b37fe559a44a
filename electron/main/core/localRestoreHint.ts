import type { BridgeError } from "../../../shared/bridge.ts";

/**
 * The service says how to restore a damaged database from the command line, which a desktop
 * user does not need: the app restores its Local data itself. Its answers about the Local
 * profile's damaged database get that way added, in words.
 * @internal Exported for tests.
 */
export const LOCAL_RESTORE_HINT =
  "In Keydesk: Settings → Restore… brings the Local data back from a backup (the damaged data is kept beside it).";

export function withLocalRestoreHint(error: BridgeError, activeIsLocal: boolean): BridgeError {
  if (!activeIsLocal || error.messageId !== "SERVICE_UNAVAILABLE" || !/ is damaged\b/.test(error.text))
    return error;
  return { ...error, text: `${error.text}. ${LOCAL_RESTORE_HINT}` };
}
