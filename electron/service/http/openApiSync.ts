import {
  createSyncLinkRequestSchema,
  DEFAULT_LOCAL_ONLY_PAGE,
  MAX_LOCAL_ONLY_PAGE,
  pushLocalOnlyRequestSchema,
  resolveConflictRequestSchema,
  SYNC_LINKS_PATH,
  SYNCED_FIELDS,
  updateSyncLinkRequestSchema,
} from "../../../shared/sync.ts";
import { BASIC_CHALLENGE, errorResponse } from "./openApiErrors.ts";
import { API_DATETIME, json, jsonSchemaOf, ref } from "./openApiParts.ts";

/** The OpenAPI description of the sync routes (`/local/1/sync/links`). */

const ok = (description: string, schema: object) => ({ "200": { description, content: json(schema) } });
const noContent = { "204": { description: "Done; no body" } };
const body = (name: string) => ({ required: true, content: json(ref(name)) });
const basicOnly = [{ basic: [] }];
const TAGS = ["Sync"];

const errors = {
  "400": errorResponse(
    "400",
    "Invalid input (a body that is not JSON, or fields that are wrong); validationErrors names each field",
  ),
  "401": errorResponse("401", "Missing or wrong Basic credentials", BASIC_CHALLENGE),
  "403": errorResponse("403", "An API key was used; sync takes the account's Basic credentials only"),
  "404": errorResponse("404", "No such link, key or outbox entry among the accounts the caller manages"),
  "413": errorResponse("413", "Request body over 64 KiB"),
  "415": errorResponse("415", "Request body is not application/json"),
  "429": errorResponse(
    "429",
    "Too many failed sign-in attempts from this address, or too many sign-ins being checked at once; see Retry-After",
  ),
  "500": errorResponse("500", "The service failed; nothing was written"),
};
type Status = keyof typeof errors;

/**
 * The refusals of each kind of operation. Every method but GET has its body read (and refused
 * when it is too large, not JSON or broken) before the operation runs, even where it takes none.
 */
const LIST: Status[] = ["401", "403", "429", "500"];
const READ_ONE: Status[] = ["401", "403", "404", "429", "500"];
const WRITE: Status[] = ["400", "401", "403", "404", "413", "415", "429", "500"];

const nullableTime = { ...API_DATETIME, type: ["string", "null"] };
const count = { type: "integer", minimum: 0 };
const fieldName = { type: "string", enum: [...SYNCED_FIELDS] };

export const syncSchemas = {
  SyncLink: {
    type: "object",
    additionalProperties: false,
    required: [
      "id",
      "accountKey",
      "remote",
      "intervalSeconds",
      "state",
      "pausedReason",
      "progress",
      "lastAttemptAt",
      "lastSuccessAt",
      "lastError",
      "nextRunAt",
      "pending",
      "failed",
      "conflicts",
      "remoteMissing",
      "linkedKeys",
    ],
    properties: {
      id: { type: "integer", minimum: 1 },
      accountKey: { type: "string", description: "The local account" },
      remote: {
        type: "object",
        additionalProperties: false,
        required: ["baseUrl", "username", "accountKey"],
        properties: {
          baseUrl: { type: "string" },
          username: { type: "string" },
          accountKey: { type: "string" },
        },
      },
      intervalSeconds: { type: "integer" },
      state: { type: "string", enum: ["idle", "running", "backing-off", "paused"] },
      pausedReason: { type: ["string", "null"], enum: ["credentials", "user", null] },
      progress: {
        oneOf: [
          { type: "null" },
          {
            type: "object",
            additionalProperties: false,
            required: ["phase", "done", "total"],
            properties: { phase: { type: "string", enum: ["pull", "push"] }, done: count, total: count },
          },
        ],
      },
      lastAttemptAt: nullableTime,
      lastSuccessAt: nullableTime,
      lastError: { type: ["string", "null"] },
      nextRunAt: nullableTime,
      pending: count,
      failed: count,
      conflicts: count,
      remoteMissing: count,
      linkedKeys: count,
    },
  },
  SyncLinkList: {
    type: "object",
    additionalProperties: false,
    required: ["links"],
    properties: { links: { type: "array", items: ref("SyncLink") } },
  },
  SyncKey: {
    type: "object",
    additionalProperties: false,
    required: ["key", "name", "remoteKey", "state", "conflicts", "pendingFields", "error"],
    properties: {
      key: { type: "string" },
      name: { type: "string" },
      remoteKey: { type: ["string", "null"] },
      state: {
        type: "string",
        enum: ["synced", "pending", "conflict", "remote-missing", "failed", "local-only"],
      },
      conflicts: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["field", "mine", "theirs"],
          properties: { field: fieldName, mine: {}, theirs: {} },
        },
      },
      pendingFields: { type: "array", items: fieldName },
      error: { type: ["string", "null"] },
    },
  },
  SyncKeyList: {
    type: "object",
    additionalProperties: false,
    required: ["keys"],
    properties: { keys: { type: "array", items: ref("SyncKey") } },
  },
  SyncOutboxEntry: {
    type: "object",
    additionalProperties: false,
    required: ["id", "key", "kind", "fields", "heldFields", "attempts", "failed", "lastError", "createdAt"],
    properties: {
      id: { type: "integer" },
      key: { type: "string" },
      kind: { type: "string", enum: ["create", "update"] },
      fields: { type: "array", items: fieldName },
      heldFields: {
        type: "array",
        items: fieldName,
        description: "Fields held back by a conflict on the key",
      },
      attempts: count,
      failed: { type: "boolean" },
      lastError: { type: ["string", "null"] },
      createdAt: API_DATETIME,
    },
  },
  SyncOutbox: {
    type: "object",
    additionalProperties: false,
    required: ["entries"],
    properties: { entries: { type: "array", items: ref("SyncOutboxEntry") } },
  },
  LocalOnlyKeyPage: {
    type: "object",
    additionalProperties: false,
    required: ["count", "keys", "nextCursor"],
    properties: {
      count: { ...count, description: "How many keys of the linked account the link does not carry" },
      keys: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["key", "name", "enabled"],
          properties: { key: { type: "string" }, name: { type: "string" }, enabled: { type: "boolean" } },
        },
      },
      nextCursor: { type: ["string", "null"], description: "Pass as cursor for the next page" },
    },
  },
  PushLocalOnlyAnswer: {
    type: "object",
    additionalProperties: false,
    required: ["queued"],
    properties: { queued: { ...count, description: "Keys whose create was queued" } },
  },
  PushLocalOnlyRequest: jsonSchemaOf(pushLocalOnlyRequestSchema),
  CreateSyncLinkRequest: jsonSchemaOf(createSyncLinkRequestSchema),
  UpdateSyncLinkRequest: jsonSchemaOf(updateSyncLinkRequestSchema),
  ResolveConflictRequest: jsonSchemaOf(resolveConflictRequestSchema),
};

const linkId = {
  name: "linkId",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[1-9][0-9]*$" },
};
const entryId = {
  name: "entryId",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[1-9][0-9]*$" },
};
const key = {
  name: "key",
  in: "path",
  required: true,
  description: "The local key id",
  schema: { type: "string" },
};

const operation = (
  operationId: string,
  summary: string,
  responses: object,
  refusals: { statuses: Status[]; conflict?: string; body?: string; forbidden?: string },
) => ({
  tags: TAGS,
  operationId,
  summary,
  security: basicOnly,
  ...(refusals.body && { requestBody: body(refusals.body) }),
  responses: {
    ...responses,
    ...Object.fromEntries(refusals.statuses.map((status) => [status, errors[status]])),
    ...(refusals.conflict && { "409": errorResponse("409", refusals.conflict) }),
    ...(refusals.forbidden && { "403": errorResponse("403", refusals.forbidden) }),
  },
});

const link = `${SYNC_LINKS_PATH}/{linkId}`;

/** Links that would make the service call a remote it is not allowed to (serve --sync-remote-allow). */
const REMOTE_NOT_ALLOWED =
  "An API key was used (sync takes Basic credentials only), or remote.baseUrl is outside the remotes this service may link to (its --sync-remote-allow option)";

export const syncPaths = {
  [SYNC_LINKS_PATH]: {
    get: operation(
      "listSyncLinks",
      "The sync links of the accounts the caller manages",
      ok("The links", ref("SyncLinkList")),
      { statuses: LIST },
    ),
    post: operation(
      "createSyncLink",
      "Link a local account to an account of a remote instance; the remote is checked first (reachable, credentials accepted, account theirs to manage: a failed check is a 400 naming the part that failed, and nothing is stored; check: false skips it); the first run starts at once",
      ok("The new link", ref("SyncLink")),
      {
        statuses: WRITE,
        body: "CreateSyncLinkRequest",
        conflict: "The account is already linked (one link per account)",
        forbidden: REMOTE_NOT_ALLOWED,
      },
    ),
  },
  [link]: {
    parameters: [linkId],
    get: operation("getSyncLink", "One link and its state", ok("The link", ref("SyncLink")), {
      statuses: READ_ONE,
    }),
    put: operation(
      "updateSyncLink",
      "Change the remote's credentials (resumes a link paused by a 401), the interval, or pause/resume",
      ok("The link", ref("SyncLink")),
      { statuses: WRITE, body: "UpdateSyncLinkRequest", forbidden: REMOTE_NOT_ALLOWED },
    ),
    delete: operation("deleteSyncLink", "Remove the link; its keys stay as local keys", noContent, {
      statuses: WRITE,
    }),
  },
  [`${link}/run`]: {
    parameters: [linkId],
    post: operation(
      "runSyncLink",
      "Sync now: pull, then push; answers when the run is over",
      ok("The link after the run", ref("SyncLink")),
      { statuses: WRITE },
    ),
  },
  [`${link}/keys`]: {
    parameters: [linkId],
    get: operation(
      "listSyncKeys",
      "Linked keys with something to show: conflicts, pending or failed changes, keys the remote no longer lists",
      ok("The keys", ref("SyncKeyList")),
      { statuses: READ_ONE },
    ),
  },
  [`${link}/keys/{key}/resolve`]: {
    parameters: [linkId, key],
    post: operation(
      "resolveSyncConflict",
      "Settle one field's conflict: keep mine (pushed to the remote) or take theirs (written here); validFrom and validTo are settled together",
      ok("The key's sync state", ref("SyncKey")),
      {
        statuses: WRITE,
        body: "ResolveConflictRequest",
        conflict: "The key has no conflict on this field (any more); reload its state",
      },
    ),
  },
  [`${link}/local-only`]: {
    parameters: [linkId],
    get: {
      ...operation(
        "listSyncLocalOnlyKeys",
        "Keys of the linked account that the link does not carry (made before the link, or whose create was discarded): their count and a page of them in creation order",
        ok("The count and a page", ref("LocalOnlyKeyPage")),
        { statuses: ["400", ...READ_ONE] },
      ),
      parameters: [
        {
          name: "limit",
          in: "query",
          schema: {
            type: "integer",
            minimum: 1,
            maximum: MAX_LOCAL_ONLY_PAGE,
            default: DEFAULT_LOCAL_ONLY_PAGE,
          },
        },
        {
          name: "cursor",
          in: "query",
          description: "The nextCursor of the page before",
          schema: { type: "string" },
        },
      ],
    },
  },
  [`${link}/local-only/push`]: {
    parameters: [linkId],
    post: operation(
      "pushSyncLocalOnlyKeys",
      "Queue the create of local-only keys on the remote (the ones named, or all); a disabled key is created not yet valid (validFrom 9999-12-31) and disabled with its true window by the update that follows",
      ok("How many were queued", ref("PushLocalOnlyAnswer")),
      { statuses: WRITE, body: "PushLocalOnlyRequest" },
    ),
  },
  [`${link}/outbox`]: {
    parameters: [linkId],
    get: operation(
      "listSyncOutbox",
      "Local changes waiting to go out, in order, and failed ones",
      ok("The outbox", ref("SyncOutbox")),
      { statuses: READ_ONE },
    ),
  },
  [`${link}/outbox/{entryId}`]: {
    parameters: [linkId, entryId],
    delete: operation(
      "discardSyncOutboxEntry",
      "Discard a change the remote refused (the local key keeps its value)",
      noContent,
      { statuses: WRITE, conflict: "The entry is still queued; only a failed entry can be discarded" },
    ),
  },
  [`${link}/outbox/{entryId}/retry`]: {
    parameters: [linkId, entryId],
    post: operation(
      "retrySyncOutboxEntry",
      "Queue a refused change again",
      ok("The entry", ref("SyncOutboxEntry")),
      { statuses: WRITE },
    ),
  },
};
