import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { apiDateTime } from "../../../../shared/answerFields.ts";
import { KEY_ID_PATTERN } from "../../../../shared/apiKeys.ts";
import { AUDIT_ACTIONS, AUDIT_CHANNELS, AUDIT_REASONS } from "../../../../shared/audit.ts";
import { SERVICE_ROUTES } from "../../../../shared/servicePaths.ts";
import { type AuditHistory, auditQuerySchema } from "../../audit/auditHistory.ts";
import type { BasicGuard } from "../basicAuthGuard.ts";
import { routePath } from "../methodRoutes.ts";
import { BASIC_CHALLENGE, basicOnly, commonErrors, errorResponse } from "../openApiErrors.ts";
import { component, documented, jsonContent } from "../routeSchemas.ts";

const LOCAL_AUDIT_PATH = SERVICE_ROUTES.localAudit;

const hex32 = z.string().regex(KEY_ID_PATTERN);

const auditEntry = component(
  "AuditEntry",
  z.strictObject({
    time: apiDateTime,
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
        z.strictObject({ old: z.unknown(), new: z.unknown() }).meta({ required: ["old", "new"] }),
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
  }),
);

const auditPage = component(
  "AuditPage",
  z.strictObject({
    entries: z.array(auditEntry),
    nextCursor: z.union([z.string().min(1), z.null()]).meta({
      description:
        "Pass as `cursor`, with the same credentials and filters, for older entries; null on the last page",
    }),
  }),
);

/** The audit history (a Keydesk extension): Basic credentials, own account and sub-accounts. */
export function registerLocalAuditRoutes(
  app: FastifyInstance,
  history: AuditHistory,
  requireBasic: BasicGuard,
): void {
  routePath(app, LOCAL_AUDIT_PATH, {
    get: documented(
      {
        tags: ["Audit"],
        operationId: "listAuditEntries",
        summary:
          "The audit history of the caller's account and the accounts it manages, newest first, one page at a time (a Keydesk extension)",
        description:
          "Every change of a key (create, update, enable, disable, rotation, sync) and of an account is recorded in the transaction of the change itself. Entries older than the service's retention (default 365 days) are deleted. A cursor is a position: entries recorded while a client pages never shift a page.",
        security: basicOnly,
        querystring: auditQuerySchema,
        response: {
          200: { description: "One page of entries", content: jsonContent(auditPage) },
          400: errorResponse(
            "400",
            "A filter is invalid (validationErrors names it), or the cursor is not one this service gave",
          ),
          401: errorResponse("401", "Missing or wrong Basic credentials", BASIC_CHALLENGE),
          403: errorResponse(
            "403",
            "An API key (App scheme) was used; the audit takes Basic credentials only",
          ),
          404: errorResponse("404", "The account filter names an account the caller does not manage"),
          429: commonErrors["429"],
          500: errorResponse("500", "The service failed"),
        },
      },
      { before: requireBasic, handler: (request, _reply, caller) => history.page(caller, request.query) },
    ),
  });
}
