import { z } from "zod";
import { answerFields } from "./answerFields.ts";
import { KEY_ID_PATTERN } from "./apiKeyRules.ts";
import { AUDIT_ACTIONS, AUDIT_CHANNELS, AUDIT_REASONS } from "./auditTerms.ts";

/**
 * The audit history's answers (`/local/1/audit`, Keydesk's own service only), one set of fields
 * for both sides (see answerFields.ts): the key service declares them strict, the HTTP client
 * checks them lenient.
 */
export function auditAnswerSchemas(strict: boolean) {
  const { object, promised, dateTime } = answerFields(strict);
  const hex32 = promised(z.string().regex(KEY_ID_PATTERN), z.string());

  const auditEntry = object({
    time: dateTime,
    accountKey: hex32,
    actor: z.string().meta({ description: "The username of the account whose credentials made the change" }),
    channel: z.enum(AUDIT_CHANNELS).meta({
      description:
        "What the client said it is (request header Keydesk-Client: desktop, cli or sync; absent or unknown is api). Self-declared, not verified",
    }),
    action: z.enum(AUDIT_ACTIONS).meta({
      description:
        "create, update, enable, disable (an update that changed enabled), rotate (a create or update sent with Keydesk-Action: rotate), sync-pull (a key created or changed here from a sync remote), sync-push (a local change sent to the remote), sync-resolve (a conflict settled), account-add and account-passwd (the command line)",
    }),
    reason: z.union([
      z.enum(AUDIT_REASONS).meta({
        description: "Keydesk-Action as the client sent it: part of a rotation, or of a bulk enable/disable",
      }),
      z.null(),
    ]),
    key: z.union([
      hex32.meta({ description: "The key's `key` (never its publicApiKey); null for an account change" }),
      z.null(),
    ]),
    changes: z
      .record(
        z.string(),
        // Both are there, null when not set (zod counts an unknown as optional).
        object({ old: z.unknown(), new: z.unknown() }).meta({ required: ["old", "new"] }),
      )
      .meta({
        description:
          "Each changed field (name, allowedIPs, permissions, validFrom, validTo, enabled; username and parent for a new account) with its old and new value; null means not set. Never a publicApiKey or a password",
      }),
    address: z.union([
      z.string().meta({
        description:
          "The client address the service saw (for sync-pull and sync-push, the remote's origin); null for the command line",
      }),
      z.null(),
    ]),
  });

  const auditPage = object({
    entries: z.array(auditEntry),
    nextCursor: z.union([promised(z.string().min(1), z.string()), z.null()]).meta({
      description:
        "Pass as `cursor`, with the same credentials and filters, for older entries; null on the last page",
    }),
  });

  return { auditEntry, auditPage };
}
