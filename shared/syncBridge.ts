import { z } from "zod";
import { ACCOUNT_KEY_SEGMENT_PATTERN, ANY_ID_PATTERN, KEY_ID_PATTERN } from "./apiKeys.ts";
import type { AccountDto } from "./bridgeTypes.ts";
import {
  DEFAULT_LOCAL_ONLY_PAGE,
  type LocalOnlyKeyPageDto,
  MAX_LOCAL_ONLY_PAGE,
  MAX_SYNC_INTERVAL_SECONDS,
  MIN_SYNC_INTERVAL_SECONDS,
  type PushLocalOnlyDto,
  SYNCED_FIELDS,
  type SyncKeyDto,
  type SyncLinkDto,
  type SyncOutboxEntryDto,
} from "./sync.ts";

/**
 * The sync part of the typed bridge (shared/bridge.ts spreads it into its contract): the
 * desktop's calls of the embedded service's sync routes (shared/sync.ts). Main adds what only it
 * has: a link is made from a remote *profile*, whose password comes from the OS keychain and never
 * passes through the renderer.
 */

const linkId = z.int("must be a link id").positive("must be a link id");
const entryId = z.int("must be an outbox entry id").positive("must be an outbox entry id");
const localAccountKey = z
  .string()
  .regex(ACCOUNT_KEY_SEGMENT_PATTERN, "must be _ or a 32-character accountKey")
  .default("_");
const remoteAccountKey = z
  .string()
  .regex(ANY_ID_PATTERN, "must be _ (the profile's own account) or an account key")
  .default("_");
const keyId = z.string().regex(KEY_ID_PATTERN, "must be a 32-character key id");
const intervalSeconds = z
  .int("must be a whole number of seconds")
  .min(MIN_SYNC_INTERVAL_SECONDS, `must be at least ${MIN_SYNC_INTERVAL_SECONDS} seconds`)
  .max(MAX_SYNC_INTERVAL_SECONDS, `must be at most ${MAX_SYNC_INTERVAL_SECONDS} seconds`);

export const syncBridgeArgumentSchemas = {
  "sync.links.list": z.strictObject({}).optional(),
  "sync.links.create": z.strictObject({
    localAccountKey,
    /** A remote profile: its base URL, username and (from the keychain) password. */
    profileId: z.string().min(1).max(100),
    remoteAccountKey,
    intervalSeconds: intervalSeconds.optional(),
    /** false links without checking the remote first (a remote that is down for now). */
    check: z.boolean().optional(),
  }),
  "sync.links.update": z.strictObject({
    id: linkId,
    intervalSeconds: intervalSeconds.optional(),
    paused: z.boolean().optional(),
  }),
  "sync.links.remove": z.strictObject({ id: linkId }),
  "sync.run": z.strictObject({ id: linkId }),
  "sync.keys": z.strictObject({ id: linkId }),
  "sync.resolve": z.strictObject({
    id: linkId,
    key: keyId,
    field: z.enum(SYNCED_FIELDS),
    take: z.enum(["mine", "theirs"]),
  }),
  "sync.outbox": z.strictObject({ id: linkId }),
  "sync.outbox.discard": z.strictObject({ id: linkId, entryId }),
  "sync.outbox.retry": z.strictObject({ id: linkId, entryId }),
  /** The linked account's keys the link does not carry (made before it): count and one page. */
  "sync.localOnly": z.strictObject({
    id: linkId,
    limit: z
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(MAX_LOCAL_ONLY_PAGE, `must be at most ${MAX_LOCAL_ONLY_PAGE}`)
      .default(DEFAULT_LOCAL_ONLY_PAGE),
    cursor: z
      .string()
      .regex(/^[1-9]\d{0,14}$/, "must be a nextCursor of an earlier page")
      .optional(),
  }),
  /** Queues the create of local-only keys on the remote: the ones named, or all of them. */
  "sync.localOnly.push": z.union([
    z.strictObject({
      id: linkId,
      keys: z
        .array(keyId)
        .min(1, "must name a key")
        .max(MAX_LOCAL_ONLY_PAGE, `at most ${MAX_LOCAL_ONLY_PAGE} keys`),
    }),
    z.strictObject({ id: linkId, all: z.literal(true) }),
  ]),
  /** The embedded service's accounts (whichever profile is active): the local side of a link. */
  "sync.localAccounts": z.strictObject({}).optional(),
  /** A remote profile's own account and sub-accounts: the remote side of a link. */
  "sync.remoteAccounts": z.strictObject({ profileId: z.string().min(1).max(100) }),
} as const;

export interface SyncBridgeResults {
  "sync.links.list": SyncLinkDto[];
  "sync.links.create": SyncLinkDto;
  "sync.links.update": SyncLinkDto;
  "sync.links.remove": null;
  "sync.run": SyncLinkDto;
  "sync.keys": SyncKeyDto[];
  "sync.resolve": SyncKeyDto;
  "sync.outbox": SyncOutboxEntryDto[];
  "sync.outbox.discard": null;
  "sync.outbox.retry": SyncOutboxEntryDto;
  "sync.localOnly": LocalOnlyKeyPageDto;
  "sync.localOnly.push": PushLocalOnlyDto;
  "sync.localAccounts": AccountDto[];
  "sync.remoteAccounts": AccountDto[];
}

/** Main pushes the embedded service's links after every sync call and while a run is under way. */
export interface SyncChangedEvent {
  type: "sync-changed";
  links: SyncLinkDto[];
}
