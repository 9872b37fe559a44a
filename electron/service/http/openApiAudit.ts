import { AUDIT_ACTIONS, AUDIT_CHANNELS, AUDIT_REASONS } from "../../../shared/audit.ts";
import { DEFAULT_AUDIT_PAGE, MAX_AUDIT_PAGE } from "../audit/auditHistory.ts";
import { BASIC_CHALLENGE, errorResponse } from "./openApiErrors.ts";
import { API_DATETIME, json, ref } from "./openApiParts.ts";

/** The audit history's part of the OpenAPI document: `GET /local/1/audit` (a Keydesk extension). */

const nullable = (schema: object) => ({ oneOf: [schema, { type: "null" }] });

export const auditSchemas = {
  AuditEntry: {
    type: "object",
    required: ["time", "accountKey", "actor", "channel", "action", "reason", "key", "changes", "address"],
    additionalProperties: false,
    properties: {
      time: API_DATETIME,
      accountKey: { type: "string", pattern: "^[0-9A-F]{32}$" },
      actor: { type: "string", description: "The username of the account whose credentials made the change" },
      channel: {
        type: "string",
        enum: [...AUDIT_CHANNELS],
        description:
          "What the client said it is (request header Keydesk-Client: desktop, cli or sync; absent or unknown is api). Self-declared, not verified",
      },
      action: {
        type: "string",
        enum: [...AUDIT_ACTIONS],
        description:
          "create, update, enable, disable (an update that changed enabled), rotate (a create or update sent with Keydesk-Action: rotate), sync-pull (a key created or changed here from a sync remote), sync-push (a local change sent to the remote), sync-resolve (a conflict settled), account-add and account-passwd (the command line)",
      },
      reason: nullable({
        type: "string",
        enum: [...AUDIT_REASONS],
        description: "Keydesk-Action as the client sent it: part of a rotation, or of a bulk enable/disable",
      }),
      key: nullable({
        type: "string",
        pattern: "^[0-9A-F]{32}$",
        description: "The key's `key` (never its publicApiKey); null for an account change",
      }),
      changes: {
        type: "object",
        description:
          "Each changed field (name, allowedIPs, permissions, validFrom, validTo, enabled; username and parent for a new account) with its old and new value; null means not set. Never a publicApiKey or a password",
        additionalProperties: {
          type: "object",
          required: ["old", "new"],
          additionalProperties: false,
          properties: { old: {}, new: {} },
        },
      },
      address: nullable({
        type: "string",
        description:
          "The client address the service saw (for sync-pull and sync-push, the remote's origin); null for the command line",
      }),
    },
  },
  AuditPage: {
    type: "object",
    required: ["entries", "nextCursor"],
    additionalProperties: false,
    properties: {
      entries: { type: "array", items: ref("AuditEntry") },
      nextCursor: {
        oneOf: [{ type: "string", minLength: 1 }, { type: "null" }],
        description:
          "Pass as `cursor`, with the same credentials and filters, for older entries; null on the last page",
      },
    },
  },
};

const dateTimeInput = (description: string) => ({
  in: "query",
  schema: { type: "string" },
  description: `${description}; the formats validFrom accepts, e.g. 2030-06-01T00:00:00.000+0000 or 2030-06-01T00:00:00Z`,
});

export const auditPaths = {
  "/local/1/audit": {
    get: {
      tags: ["Audit"],
      operationId: "listAuditEntries",
      summary:
        "The audit history of the caller's account and the accounts it manages, newest first, one page at a time (a Keydesk extension)",
      description:
        "Every change of a key (create, update, enable, disable, rotation, sync) and of an account is recorded in the transaction of the change itself. Entries older than the service's retention (default 365 days) are deleted. A cursor is a position: entries recorded while a client pages never shift a page.",
      security: [{ basic: [] }],
      parameters: [
        {
          name: "key",
          in: "query",
          schema: { type: "string", pattern: "^[0-9A-F]{32}$" },
          description: "Entries of this key",
        },
        {
          name: "actor",
          in: "query",
          schema: { type: "string", minLength: 1, maxLength: 255 },
          description: "Entries made by this username",
        },
        {
          name: "account",
          in: "query",
          schema: { type: "string", pattern: "^(_|[0-9A-F]{32})$" },
          description: "Entries of this one account: `_` (the caller's own) or a sub-account's accountKey",
        },
        { name: "from", ...dateTimeInput("Entries at or after this time") },
        { name: "to", ...dateTimeInput("Entries before this time (after from)") },
        {
          name: "limit",
          in: "query",
          schema: { type: "string", pattern: "^[0-9]{1,6}$" },
          description: `Entries per page, 1 to ${MAX_AUDIT_PAGE}; ${DEFAULT_AUDIT_PAGE} when left out`,
        },
        {
          name: "cursor",
          in: "query",
          schema: { type: "string", minLength: 1 },
          description:
            "The nextCursor of the page before, sent with the same credentials and the same filters (key, actor, account, from, to); opaque. Any other cursor is a 400 naming cursor",
        },
      ],
      responses: {
        "200": { description: "One page of entries", content: json(ref("AuditPage")) },
        "400": errorResponse(
          "400",
          "A filter is invalid (validationErrors names it), or the cursor is not one this service gave",
        ),
        "401": errorResponse("401", "Missing or wrong Basic credentials", BASIC_CHALLENGE),
        "403": errorResponse(
          "403",
          "An API key (App scheme) was used; the audit takes Basic credentials only",
        ),
        "404": errorResponse("404", "The account filter names an account the caller does not manage"),
        "429": errorResponse(
          "429",
          "Too many failed sign-in attempts from this address, or too many sign-ins being checked at once; see Retry-After",
        ),
        "500": errorResponse("500", "The service failed"),
      },
    },
  },
};
