import { z } from "zod";
import { ANY_ID_PATTERN, KEY_ID_PATTERN } from "./apiKeys.ts";
import type { syncAnswerSchemas } from "./syncAnswers.ts";
import { SYNCED_FIELDS, type SyncedField, type SyncKeyState } from "./syncStates.ts";

export { SYNCED_FIELDS, type SyncedField, type SyncKeyState };

/** The answers' types come from their schemas (syncAnswers.ts). */
type SyncAnswers = ReturnType<typeof syncAnswerSchemas>;

/**
 * Sync with a remote instance of the key-management API: the contract of the key service's
 * `/local/1/sync` routes (the desktop's sync view is their client). A link joins one local
 * account to one remote account; the remote's password is write-only (never answered).
 */

export const SYNC_LINKS_PATH = "/local/1/sync/links";

export const MIN_SYNC_INTERVAL_SECONDS = 10;
export const MAX_SYNC_INTERVAL_SECONDS = 86_400;
export const DEFAULT_SYNC_INTERVAL_SECONDS = 300;

export type SyncProgressDto = z.infer<SyncAnswers["progress"]>;

export type SyncLinkDto = z.infer<SyncAnswers["syncLink"]>;

/**
 * One finished run of a link: when, what it pulled and pushed, the conflicts left, its error.
 * @internal Exported for tests.
 */
export type SyncRunDto = z.infer<SyncAnswers["syncRun"]>;

/** How many of a link's runs its log keeps (the newest). */
export const SYNC_RUN_LOG_SIZE = 50;

export type SyncKeyDto = z.infer<SyncAnswers["syncKey"]>;

export type SyncOutboxEntryDto = z.infer<SyncAnswers["syncOutboxEntry"]>;

/**
 * A key of a linked account that the link does not carry: it was there before the account was
 * linked (or its create was discarded). Nothing of it goes to the remote until it is pushed.
 */
export type LocalOnlyKeyDto = z.infer<SyncAnswers["localOnlyKey"]>;

/** `GET .../local-only`: the count of the account's local-only keys and one page of them. */
export type LocalOnlyKeyPageDto = z.infer<SyncAnswers["localOnlyKeyPage"]>;

export const MAX_LOCAL_ONLY_PAGE = 1_000;
export const DEFAULT_LOCAL_ONLY_PAGE = 100;

/** `POST .../local-only/push`: these keys (one at least), or all of them; answers how many were queued. */
export const pushLocalOnlyRequestSchema = z.union(
  [
    z.strictObject({
      keys: z
        .array(z.string().regex(KEY_ID_PATTERN, { error: "must be 32-character key ids" }), {
          error: "must be a list of key ids",
        })
        .min(1, { error: "must name at least one key" })
        .max(MAX_LOCAL_ONLY_PAGE, { error: `must name at most ${MAX_LOCAL_ONLY_PAGE} keys` }),
    }),
    z.strictObject({ all: z.literal(true, { error: "must be true" }) }),
  ],
  { error: 'the request body must be {"keys": [key ids]} or {"all": true}' },
);

export type PushLocalOnlyRequest = z.input<typeof pushLocalOnlyRequestSchema>;

export interface PushLocalOnlyDto {
  /** Keys whose create was queued (keys already linked, or not local-only, are not counted). */
  queued: number;
}

const baseUrlSchema = z
  .string({ error: "must be a string" })
  .max(2000, { error: "must be at most 2000 characters" })
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password;
      } catch {
        return false;
      }
    },
    { error: "must be an http:// or https:// URL without credentials in it" },
  );

const remoteAccountKeySchema = z
  .string({ error: "must be a string" })
  .regex(ANY_ID_PATTERN, { error: "must be _ (the credentials' own account) or an account key" });

const usernameSchema = z
  .string({ error: "must be a string" })
  .min(1, { error: "must not be empty" })
  .max(200, { error: "must be at most 200 characters" });
const passwordSchema = z
  .string({ error: "must be a string" })
  .min(1, { error: "must not be empty" })
  .max(1000, { error: "must be at most 1000 characters" });

const intervalSchema = z
  .int({ error: "must be a whole number of seconds" })
  .min(MIN_SYNC_INTERVAL_SECONDS, { error: `must be at least ${MIN_SYNC_INTERVAL_SECONDS} seconds` })
  .max(MAX_SYNC_INTERVAL_SECONDS, { error: `must be at most ${MAX_SYNC_INTERVAL_SECONDS} seconds` });

export const createSyncLinkRequestSchema = z.strictObject(
  {
    /** The local account: `_` (the caller's own) or one of its sub-accounts. */
    accountKey: z.string({ error: "is required" }),
    remote: z.strictObject(
      {
        baseUrl: baseUrlSchema,
        username: usernameSchema,
        password: passwordSchema,
        accountKey: remoteAccountKeySchema.default("_"),
      },
      { error: "must be an object with baseUrl, username, password and accountKey" },
    ),
    intervalSeconds: intervalSchema.default(DEFAULT_SYNC_INTERVAL_SECONDS),
    /**
     * The remote is checked before the link is stored (reachable, credentials accepted, account
     * theirs to manage); a failed check is a 400 naming the part that failed. false links without it.
     */
    check: z.boolean({ error: "must be true or false" }).default(true),
  },
  { error: "the request body must be a JSON object" },
);

export const updateSyncLinkRequestSchema = z.strictObject(
  {
    /**
     * New credentials for the remote (both together), and its new address if it moved; a link
     * paused by a 401 resumes.
     */
    remote: z
      .strictObject(
        { baseUrl: baseUrlSchema.optional(), username: usernameSchema, password: passwordSchema },
        { error: "must be an object with username and password (and baseUrl when it moved)" },
      )
      .optional(),
    intervalSeconds: intervalSchema.optional(),
    /** true pauses the link; false resumes it. */
    paused: z.boolean({ error: "must be true or false" }).optional(),
  },
  { error: "the request body must be a JSON object" },
);

export const resolveConflictRequestSchema = z.strictObject(
  {
    field: z.enum(SYNCED_FIELDS, { error: `must be one of ${SYNCED_FIELDS.join(", ")}` }),
    take: z.enum(["mine", "theirs"], { error: "must be mine or theirs" }),
  },
  { error: "the request body must be a JSON object" },
);

export type CreateSyncLinkRequest = z.input<typeof createSyncLinkRequestSchema>;
export type UpdateSyncLinkRequest = z.input<typeof updateSyncLinkRequestSchema>;
export type ResolveConflictRequest = z.input<typeof resolveConflictRequestSchema>;

/** The routes (all Basic; the caller must manage the link's local account). */
export const syncPaths = {
  links: SYNC_LINKS_PATH,
  link: (id: number) => `${SYNC_LINKS_PATH}/${id}`,
  /** POST: runs the link now and answers its state after the run. */
  run: (id: number) => `${SYNC_LINKS_PATH}/${id}/run`,
  keys: (id: number) => `${SYNC_LINKS_PATH}/${id}/keys`,
  /** POST {field, take}: resolves one field's conflict. */
  resolve: (id: number, key: string) => `${SYNC_LINKS_PATH}/${id}/keys/${encodeURIComponent(key)}/resolve`,
  outbox: (id: number) => `${SYNC_LINKS_PATH}/${id}/outbox`,
  /** DELETE discards a failed entry; POST .../retry puts it back in the queue. */
  outboxEntry: (id: number, entryId: number) => `${SYNC_LINKS_PATH}/${id}/outbox/${entryId}`,
  retryEntry: (id: number, entryId: number) => `${SYNC_LINKS_PATH}/${id}/outbox/${entryId}/retry`,
  /** GET ?limit=&cursor=: the linked account's local-only keys (count and a page). */
  localOnly: (id: number) => `${SYNC_LINKS_PATH}/${id}/local-only`,
  /** POST {keys} or {all: true}: queues their creates on the remote. */
  pushLocalOnly: (id: number) => `${SYNC_LINKS_PATH}/${id}/local-only/push`,
} as const;
