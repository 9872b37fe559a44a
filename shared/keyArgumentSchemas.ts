import { z } from "zod";
import {
  ANY_ID_PATTERN,
  KEY_SORT_FIELDS,
  KEY_STATE_FILTERS,
  NAME_MAX_LENGTH,
  PERMISSIONS,
  UNUSED_FOR_DAYS_MAX,
} from "./apiKeys.ts";

/** Argument schemas of the key methods of the bridge, shared by shared/bridge.ts and shared/keyLifecycleBridge.ts. */

// Remote services may spell ids their own way (ANY_ID_PATTERN); `_` is the credentials' own account.
export const accountKeySchema = z.string().regex(ANY_ID_PATTERN, "must be _ or an accountKey").default("_");
/** A connection profile's id. */
export const profileIdSchema = z.string().min(1).max(100);

/**
 * The connection profile whose data a call acts on: the one the view showed when it was made.
 * Main refuses the call when another profile is active by then (PROFILE_CHANGED), so an action on a
 * row of one service never reaches another. The console always names it (its calls go through
 * renderer/src/profileScope.ts); a caller that names none acts on whichever profile is active.
 */
export const callProfileSchema = profileIdSchema.optional();
export const keyIdSchema = z.string().regex(ANY_ID_PATTERN, "must be a key id (printable, without /)");

/** What a page, a count, a bulk selection or an export of keys is narrowed by (bridge arguments). */
export const keyQuerySchema = z.strictObject({
  enabled: z.boolean().optional(),
  permission: z.enum(PERMISSIONS).optional(),
  /** The whole name, exactly (the API's own `name` lookup). */
  name: z.string().max(NAME_MAX_LENGTH).optional(),
  /** Case-insensitive substring of the name. */
  nameContains: z.string().max(NAME_MAX_LENGTH).optional(),
  /** The key's state when the service answers (see shared/apiKeys.ts keyStateAt). */
  state: z.enum(KEY_STATE_FILTERS).optional(),
  /** Keys without an allowed call in this many days (services that report usage only). */
  unusedForDays: z.number().int().min(1).max(UNUSED_FOR_DAYS_MAX).optional(),
});

/** The order of a list (creation order, ascending, when left out); ties in creation order. */
export const keySortSchema = z.strictObject({ by: z.enum(KEY_SORT_FIELDS), desc: z.boolean() });
