import { z } from "zod";
import { answerFields } from "./answerFields.ts";
import { SYNC_KEY_STATES, SYNC_LINK_STATES, SYNCED_FIELDS } from "./syncStates.ts";

/**
 * The answers of the sync routes (`/local/1/sync/links`, shared/sync.ts), one set of fields for both
 * sides (see answerFields.ts): the key service declares them strict, the HTTP client checks them
 * lenient.
 */
export function syncAnswerSchemas(strict: boolean) {
  const { object, promised, dateTime } = answerFields(strict);
  const count = promised(z.number().int().min(0), z.number().int());
  const nullableTime = z.union([dateTime, z.null()]);
  const fieldName = z.enum(SYNCED_FIELDS);

  const progress = object({
    phase: z.enum(["pull", "push"]),
    done: promised(z.number().int().min(0), z.number()),
    total: promised(z.number().int().min(0), z.number()),
  });

  const syncRun = object({
    startedAt: dateTime,
    endedAt: dateTime,
    pulled: count.meta({ description: "Keys created or changed here from the remote" }),
    pushed: count.meta({ description: "Keys created or changed on the remote" }),
    conflicts: count.meta({ description: "Keys in conflict when the run ended" }),
    error: z.string().nullable().meta({
      description: "Why the run failed, or the keys it could not handle; null when it went through",
    }),
  });

  const syncLink = object({
    id: promised(z.number().int().min(1), z.number().int()),
    accountKey: z.string().meta({ description: "The local account" }),
    remote: object({ baseUrl: z.string(), username: z.string(), accountKey: z.string() }),
    intervalSeconds: z.number().int(),
    state: z.enum(SYNC_LINK_STATES),
    /** Why the link is paused: "credentials" (the remote answered 401) or "user". */
    pausedReason: z.enum(["credentials", "user"]).nullable(),
    progress: z.union([z.null(), progress]),
    lastAttemptAt: nullableTime,
    lastSuccessAt: nullableTime,
    /** The last run's failure, in one sentence; null after a run that went through. */
    lastError: z.string().nullable(),
    nextRunAt: nullableTime,
    /** Local changes waiting to go out (not counting failed ones). */
    pending: count,
    /** Changes the remote refused (4xx other than 401/429): kept until retried or discarded. */
    failed: count,
    /** Keys with at least one field changed differently on both sides. */
    conflicts: count,
    /** Linked keys the remote no longer lists (flagged, never deleted). */
    remoteMissing: count,
    linkedKeys: count,
    /** The link's recent finished runs, newest first (at most SYNC_RUN_LOG_SIZE), kept across restarts. */
    recentRuns: z.array(syncRun),
  });

  /** Who changed a field here, and when (the local audit history). */
  const localChange = object({
    by: z.string().meta({ description: "The account whose credentials made the change" }),
    at: dateTime,
  });
  /**
   * Where the remote's value came from. The key-management API answers no updatedAt and no author:
   * `seenAt` is when a pull first saw the value; `by` and `at` are what the remote's audit history
   * says (a Keydesk remote), null when it says nothing.
   */
  const remoteChange = object({
    seenAt: dateTime,
    by: z.string().nullable(),
    at: nullableTime,
  });
  /** One field changed differently on both sides: the API's JSON value of each (absent as null). */
  const fieldConflict = object({
    field: fieldName,
    mine: z.unknown(),
    theirs: z.unknown(),
    mineChange: localChange.nullable().meta({ description: "null when the local history does not say" }),
    theirsChange: remoteChange
      .nullable()
      .meta({ description: "null for a conflict seen before this was kept" }),
  }).meta({
    required: ["field", "mine", "theirs", "mineChange", "theirsChange"],
  });
  const syncKey = object({
    /** The local key id. */
    key: z.string(),
    name: z.string(),
    /** The key's id on the remote; null until its create reached the remote. */
    remoteKey: z.string().nullable(),
    state: z.enum(SYNC_KEY_STATES),
    conflicts: z.array(fieldConflict),
    /** Fields with local changes still to go out. */
    pendingFields: z.array(fieldName),
    error: z.string().nullable(),
  });

  const syncOutboxEntry = object({
    id: z.number().int(),
    key: z.string(),
    kind: z.enum(["create", "update"]),
    fields: z.array(fieldName),
    heldFields: z.array(fieldName).meta({ description: "Fields held back by a conflict on the key" }),
    attempts: count,
    failed: z.boolean(),
    lastError: z.string().nullable(),
    createdAt: dateTime,
  });

  const localOnlyKey = object({
    key: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    // Its validity window, absent when open: the Sync view reads the key's state from it.
    validFrom: dateTime.optional(),
    validTo: dateTime.optional(),
  });
  const localOnlyKeyPage = object({
    count: count.meta({ description: "How many keys of the linked account the link does not carry" }),
    keys: z.array(localOnlyKey),
    nextCursor: z.string().nullable().meta({ description: "Pass as cursor for the next page" }),
  });

  return {
    progress,
    syncRun,
    syncLink,
    syncLinkList: object({ links: z.array(syncLink) }),
    syncKey,
    syncKeyList: object({ keys: z.array(syncKey) }),
    syncOutboxEntry,
    syncOutbox: object({ entries: z.array(syncOutboxEntry) }),
    localOnlyKey,
    localOnlyKeyPage,
    pushLocalOnlyAnswer: object({ queued: count.meta({ description: "Keys whose create was queued" }) }),
  };
}
