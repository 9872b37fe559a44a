import { z } from "zod";
import { apiDateTime } from "../../shared/answerFields.ts";
import {
  createSyncLinkRequestSchema,
  DEFAULT_LOCAL_ONLY_PAGE,
  MAX_LOCAL_ONLY_PAGE,
  pushLocalOnlyRequestSchema,
  resolveConflictRequestSchema,
  SYNCED_FIELDS,
  updateSyncLinkRequestSchema,
} from "../../shared/sync.ts";
import { component } from "../service/http/routeSchemas.ts";

/** The requests and answers of the sync routes (syncRoutes.ts), as the document's components. */

const count = z.number().int().min(0);
const nullableTime = z.union([apiDateTime, z.null()]);
const fieldName = z.enum(SYNCED_FIELDS);

const input = { io: "input" } as const;
export const createSyncLinkRequest = component("CreateSyncLinkRequest", createSyncLinkRequestSchema, input);
export const updateSyncLinkRequest = component("UpdateSyncLinkRequest", updateSyncLinkRequestSchema, input);
export const resolveConflictRequest = component(
  "ResolveConflictRequest",
  resolveConflictRequestSchema,
  input,
);
export const pushLocalOnlyRequest = component("PushLocalOnlyRequest", pushLocalOnlyRequestSchema, input);

export const syncLink = component(
  "SyncLink",
  z.strictObject({
    id: z.number().int().min(1),
    accountKey: z.string().meta({ description: "The local account" }),
    remote: z.strictObject({ baseUrl: z.string(), username: z.string(), accountKey: z.string() }),
    intervalSeconds: z.number().int(),
    state: z.enum(["idle", "running", "backing-off", "paused"]),
    pausedReason: z.enum(["credentials", "user"]).nullable(),
    progress: z.union([
      z.null(),
      z.strictObject({ phase: z.enum(["pull", "push"]), done: count, total: count }),
    ]),
    lastAttemptAt: nullableTime,
    lastSuccessAt: nullableTime,
    lastError: z.string().nullable(),
    nextRunAt: nullableTime,
    pending: count,
    failed: count,
    conflicts: count,
    remoteMissing: count,
    linkedKeys: count,
  }),
);
export const syncLinkList = component("SyncLinkList", z.strictObject({ links: z.array(syncLink) }));

export const syncKey = component(
  "SyncKey",
  z.strictObject({
    key: z.string(),
    name: z.string(),
    remoteKey: z.string().nullable(),
    state: z.enum(["synced", "pending", "conflict", "remote-missing", "failed", "local-only"]),
    conflicts: z.array(
      z.strictObject({ field: fieldName, mine: z.unknown(), theirs: z.unknown() }).meta({
        required: ["field", "mine", "theirs"],
      }),
    ),
    pendingFields: z.array(fieldName),
    error: z.string().nullable(),
  }),
);
export const syncKeyList = component("SyncKeyList", z.strictObject({ keys: z.array(syncKey) }));

export const syncOutboxEntry = component(
  "SyncOutboxEntry",
  z.strictObject({
    id: z.number().int(),
    key: z.string(),
    kind: z.enum(["create", "update"]),
    fields: z.array(fieldName),
    heldFields: z.array(fieldName).meta({ description: "Fields held back by a conflict on the key" }),
    attempts: count,
    failed: z.boolean(),
    lastError: z.string().nullable(),
    createdAt: apiDateTime,
  }),
);
export const syncOutbox = component("SyncOutbox", z.strictObject({ entries: z.array(syncOutboxEntry) }));

export const localOnlyKeyPage = component(
  "LocalOnlyKeyPage",
  z.strictObject({
    count: count.meta({ description: "How many keys of the linked account the link does not carry" }),
    keys: z.array(z.strictObject({ key: z.string(), name: z.string(), enabled: z.boolean() })),
    nextCursor: z.string().nullable().meta({ description: "Pass as cursor for the next page" }),
  }),
);
export const pushLocalOnlyAnswer = component(
  "PushLocalOnlyAnswer",
  z.strictObject({ queued: count.meta({ description: "Keys whose create was queued" }) }),
);

const LIMIT = `must be a whole number from 1 to ${MAX_LOCAL_ONLY_PAGE}`;
const CURSOR = "must be a nextCursor of an earlier page";

/** The query of the local-only list: `limit` (1–1,000, 100 by default) and `cursor` (a nextCursor). */
export const localOnlyQuerySchema = z.strictObject({
  limit: z
    .string({ error: LIMIT })
    .regex(/^\d{1,5}$/, LIMIT)
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= MAX_LOCAL_ONLY_PAGE, LIMIT)
    .optional()
    .meta({
      description: `Keys per page, 1 to ${MAX_LOCAL_ONLY_PAGE}`,
      default: String(DEFAULT_LOCAL_ONLY_PAGE),
    }),
  cursor: z
    .string({ error: CURSOR })
    .regex(/^[1-9]\d{0,14}$/, CURSOR)
    .transform(Number)
    .optional()
    .meta({ description: "The nextCursor of the page before" }),
});
