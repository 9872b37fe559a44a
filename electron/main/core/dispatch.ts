import type { z } from "zod";
import type { ValidationErrors } from "../../../shared/apiErrors.ts";
import { type BridgeMethod, type BridgeResult, bridgeArgumentSchemas } from "../../../shared/bridge.ts";
import { toBridgeError } from "./bridgeErrors.ts";
import { activeProfile, type CoreContext, type Handler, type HandlerTable } from "./context.ts";
import { accountHandlers } from "./handlers/accounts.ts";
import { backupHandlers } from "./handlers/backup.ts";
import { clipboardHandlers } from "./handlers/clipboard.ts";
import { keyBulkHandlers } from "./handlers/keyBulk.ts";
import { keyExportHandlers } from "./handlers/keyExport.ts";
import { keyRollHandlers } from "./handlers/keyRoll.ts";
import { keyHandlers } from "./handlers/keys.ts";
import { notificationHandlers } from "./handlers/notifications.ts";
import { pinHandlers } from "./handlers/pins.ts";
import { profileHandlers } from "./handlers/profiles.ts";
import { serviceHandlers } from "./handlers/service.ts";
import { settingsHandlers } from "./handlers/settings.ts";
import { syncHandlers } from "./handlers/sync.ts";
import { tfaHandlers } from "./handlers/tfa.ts";
import { withLocalRestoreHint } from "./localRestoreHint.ts";
import { requireActiveProfile } from "./profileGuard.ts";
import { LOCAL_PROFILE_ID } from "./profileStore.ts";

/** Every bridge method's handler (the type makes a missing one a compile error). */
const handlers: HandlerTable<BridgeMethod> = {
  ...keyHandlers,
  ...keyRollHandlers,
  ...keyBulkHandlers,
  ...keyExportHandlers,
  ...accountHandlers,
  ...profileHandlers,
  ...serviceHandlers,
  ...pinHandlers,
  ...clipboardHandlers,
  ...settingsHandlers,
  ...notificationHandlers,
  ...syncHandlers,
  ...tfaHandlers,
  ...backupHandlers,
};

/**
 * Per-field messages of a refused argument. Fields of a key request (`request.name`) are named
 * as the service names them (`name`), so a form shows them the same way whichever side refused.
 */
function validationErrorsOf(issues: z.core.$ZodIssue[]): ValidationErrors {
  const errors: ValidationErrors = {};
  for (const issue of issues) {
    const path = issue.path[0] === "request" && issue.path.length > 1 ? issue.path.slice(1) : issue.path;
    const field = path.map(String).join(".") || "arguments";
    errors[field] = [...(errors[field] ?? []), issue.message];
  }
  return errors;
}

/** Validates the raw argument, runs the handler, and answers a BridgeResult; never throws. */
export async function dispatch(
  context: CoreContext,
  method: string,
  rawArgs: unknown,
): Promise<BridgeResult<unknown>> {
  if (!Object.hasOwn(bridgeArgumentSchemas, method)) {
    return {
      ok: false,
      error: { messageId: "INVALID_ARGUMENT", text: `there is no bridge method ${method}` },
    };
  }
  const name = method as BridgeMethod;
  const parsed = bridgeArgumentSchemas[name].safeParse(rawArgs);
  if (!parsed.success) {
    const validationErrors = validationErrorsOf(parsed.error.issues);
    return {
      ok: false,
      error: {
        messageId: "INVALID_ARGUMENT",
        text: `invalid arguments for ${method}: ${Object.entries(validationErrors)
          .map(([field, messages]) => `${field} ${messages.join("; ")}`)
          .join(", ")}`,
        validationErrors,
      },
    };
  }
  try {
    requireActiveProfile(context, parsed.data);
    const handler = handlers[name] as Handler<BridgeMethod>;
    return { ok: true, value: await handler(parsed.data as never, context) };
  } catch (error) {
    return {
      ok: false,
      error: withLocalRestoreHint(toBridgeError(error), activeProfile(context).id === LOCAL_PROFILE_ID),
    };
  }
}
