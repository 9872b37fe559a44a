import { z } from "zod";
import type { ApiKeyView, BridgeError, RevealedApiKey } from "./bridgeTypes.ts";
import { parseApiDateTime } from "./datetime.ts";
import {
  accountKeySchema,
  callProfileSchema,
  keyIdSchema,
  keyQuerySchema,
  keySortSchema,
} from "./keyArgumentSchemas.ts";
import { EXPORT_FORMATS } from "./keyExport.ts";

/**
 * The key lifecycle part of the typed bridge (shared/bridge.ts spreads it into its contract):
 * rolling a key, bulk enable/disable, export. Main does each with the spec's calls through the
 * active profile's client, so they work on the embedded service and on remotes alike.
 */

/** The longest grace a roll gives the old key: a year (366 days), in minutes. */
const MAX_GRACE_MINUTES = 366 * 24 * 60;
/** Keys one bulk call names at most (more go by filter). */
const MAX_BULK_KEYS = 10_000;

const datetime = z
  .string()
  .max(64)
  .refine((text) => parseApiDateTime(text) !== null, "must be a datetime like 2026-11-25T10:00:00.000+0000");

export const keyLifecycleArgumentSchemas = {
  /**
   * Creates the key's successor (with the key's name, ending at `validTo`: null none, absent the
   * old key's end when more than 30 days away, else none), then marks the old key's name as
   * rolled and ends it `graceMinutes` from now (0: now), in one update.
   */
  "keys.roll": z.strictObject({
    profile: callProfileSchema,
    accountKey: accountKeySchema,
    key: keyIdSchema,
    validTo: datetime.nullable().optional(),
    graceMinutes: z
      .int("must be a whole number of minutes")
      .min(0, "must not be negative")
      .max(MAX_GRACE_MINUTES, `must be at most ${MAX_GRACE_MINUTES} minutes (a year)`)
      .default(24 * 60),
  }),
  /**
   * The second half of a roll again (after it failed): marks the old key's name as rolled on
   * `rolledAt` (absent: now) and ends it at `retireAt`, never later than it ends now.
   */
  "keys.retire": z.strictObject({
    profile: callProfileSchema,
    accountKey: accountKeySchema,
    key: keyIdSchema,
    retireAt: datetime,
    rolledAt: datetime.optional(),
  }),
  "keys.bulkSetEnabled": z.strictObject({
    profile: callProfileSchema,
    accountKey: accountKeySchema,
    enabled: z.boolean(),
    /** The keys named, or every key the query matches (resolved in main) but those in `except`. */
    selection: z.union([
      z.strictObject({ keys: z.array(keyIdSchema).min(1, "must name a key").max(MAX_BULK_KEYS) }),
      z.strictObject({
        query: keyQuerySchema,
        except: z.array(keyIdSchema).max(MAX_BULK_KEYS).default([]),
      }),
    ]),
    /** Echoed in the bulk-progress events of this call. */
    progressId: z
      .string()
      .regex(/^[\w-]{1,64}$/, "must be 1 to 64 letters, digits, - or _")
      .optional(),
  }),
  /** The keys in view (query and sort) as a file, made in main; the publicApiKey only when asked. */
  "keys.export": z.strictObject({
    profile: callProfileSchema,
    accountKey: accountKeySchema,
    query: keyQuerySchema.optional(),
    sort: keySortSchema.optional(),
    format: z.enum(EXPORT_FORMATS, { error: "must be csv or json" }),
    withPublicApiKey: z.boolean().default(false),
  }),
} as const;

/**
 * How the old key's update (marked name, end) went: its end shortened, its end already earlier
 * (kept, the name marked all the same), or refused (retry offered with the same times).
 */
export type RetirementDto =
  | { state: "shortened"; validTo: string }
  | { state: "unchanged"; validTo: string }
  | { state: "failed"; retireAt: string; rolledAt: string; error: BridgeError };

export interface RollResultDto {
  /** Shown once: its publicApiKey is in the answer. */
  successor: RevealedApiKey;
  /** The old key as it is after the roll (unchanged when the retirement failed). */
  old: ApiKeyView;
  retirement: RetirementDto;
}

export interface BulkFailureDto {
  key: string;
  /** Empty when the key could not even be read. */
  name: string;
  error: BridgeError;
}

export interface BulkResultDto {
  /** Keys selected (named, or matching the filter). */
  selected: number;
  changed: number;
  /** Already in the state asked for: not written. */
  skipped: number;
  failed: BulkFailureDto[];
  /**
   * Of the keys an enable left enabled (changed or skipped), those whose calls are still refused
   * because of their validity: expired, or not valid yet. Zero for a disable.
   */
  stillRefused: { expired: number; notYetValid: number };
}

/**
 * Where an export went: a file the user picked (desktop), nowhere (the save dialog was
 * cancelled), or a one-time download address of the browser host, good for one GET with the
 * session token, so that the file (and any publicApiKey in it) never passes through the page's JS.
 */
export type ExportResultDto =
  | { delivered: "file"; path: string; count: number }
  | { delivered: "cancelled"; count: number }
  | { delivered: "download"; url: string; fileName: string; count: number };

export interface KeyLifecycleResults {
  "keys.roll": RollResultDto;
  "keys.retire": RetirementDto & { old: ApiKeyView };
  "keys.bulkSetEnabled": BulkResultDto;
  "keys.export": ExportResultDto;
}

/** Progress of a large bulk call (every few keys). */
export interface KeyLifecycleEvent {
  type: "bulk-progress";
  progressId: string;
  done: number;
  total: number;
}
