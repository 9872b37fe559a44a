import { z } from "zod";
import {
  EXPIRING_SOON_DAYS,
  KEY_INCLUDES,
  KEY_SORT_FIELDS,
  KEY_STATE_FILTERS,
  type KeyInclude,
  PERMISSIONS,
  UNUSED_FOR_DAYS_MAX,
} from "../../shared/apiKeys.ts";

/**
 * The query parameters of the key routes, as their routes declare them: Fastify validates a query
 * with them (the parsed values reach KeyService) and /openapi.json documents them, descriptions
 * included.
 */

/** The largest page a client may ask for; a cursor alone pages by DEFAULT_PAGE_LIMIT. */
const MAX_PAGE_LIMIT = 10_000;
export const DEFAULT_PAGE_LIMIT = 1_000;

const filterQueryFields = {
  enabled: z.enum(["true", "false"], { error: "must be true or false, given once" }).optional(),
  name: z
    .string({ error: "must be given once" })
    .optional()
    .meta({ description: "Exact name (spaces as +)" }),
  publicApiKey: z.string({ error: "must be given once" }).optional(),
  nameContains: z
    .string({ error: "must be given once" })
    .max(255, "must be at most 255 characters")
    .optional()
    .meta({
      description:
        "A Keydesk extension: keys whose name contains this text, in any case; blank means no filter",
    }),
  permission: z
    .enum(PERMISSIONS, { error: `must be one of ${PERMISSIONS.join(", ")}, given once` })
    .optional()
    .meta({ description: "A Keydesk extension: keys that carry this permission" }),
  state: z
    .enum(KEY_STATE_FILTERS, { error: `must be one of ${KEY_STATE_FILTERS.join(", ")}, given once` })
    .optional()
    .meta({
      description: `A Keydesk extension: keys in this state when the request arrives, as App authorization decides it: disabled; not-yet-valid (enabled, before validFrom); expired (enabled, validTo reached); enabled (enabled and inside its validity window); expiring-soon (enabled, and validTo less than ${EXPIRING_SOON_DAYS} days away)`,
    }),
  unusedForDays: z
    .string({ error: "must be given once" })
    .regex(/^\d{1,5}$/, `must be a whole number of days from 1 to ${UNUSED_FOR_DAYS_MAX}`)
    .transform(Number)
    .refine(
      (days) => days >= 1 && days <= UNUSED_FOR_DAYS_MAX,
      `must be a whole number of days from 1 to ${UNUSED_FOR_DAYS_MAX}`,
    )
    .optional()
    .meta({
      description: `A Keydesk extension: keys without an allowed App-authorized call in the last N days (1 to ${UNUSED_FOR_DAYS_MAX}); a key never used matches (usage counts from when recording began). A 400 where the service runs with --usage off`,
    }),
};
const INCLUDE_HINT = `must be ${KEY_INCLUDES.join(", ")} or both, separated by a comma`;
/** `include=usage,created`: what the keys of the answer carry beyond the spec's fields. */
const includeField = z
  .string({ error: `${INCLUDE_HINT}; given once` })
  .refine(
    (text) => text.split(",").every((part) => (KEY_INCLUDES as readonly string[]).includes(part.trim())),
    INCLUDE_HINT,
  )
  .transform((text) => new Set(text.split(",").map((part) => part.trim() as KeyInclude)))
  .optional()
  .meta({
    // The syntax the refinement accepts, for the document.
    pattern: `^\\s*(${KEY_INCLUDES.join("|")})\\s*(,\\s*(${KEY_INCLUDES.join("|")})\\s*)*$`,
    description:
      "A Keydesk extension: a comma-separated set of `usage` (the key's usage: calls allowed and refused, last use; a 400 where the service runs with --usage off) and `created` (`createdAt`, the key's creation time, null when it is not known), e.g. `usage,created`. Without it the answer is the spec's",
  });
export const countQuerySchema = z.strictObject(filterQueryFields);
/** GET of one key: other parameters are ignored, as they always were; `include` must be known. */
export const getQuerySchema = z.object({ include: includeField });
/** The usage series takes no query: an unknown parameter is a 400, not silently ignored. */
export const usageSeriesQuerySchema = z.strictObject({});

export const listQuerySchema = z.strictObject({
  ...filterQueryFields,
  include: includeField,
  limit: z
    .string({ error: "must be given once" })
    .regex(/^\d{1,6}$/, `must be a whole number from 1 to ${MAX_PAGE_LIMIT}`)
    .transform(Number)
    .refine(
      (limit) => limit >= 1 && limit <= MAX_PAGE_LIMIT,
      `must be a whole number from 1 to ${MAX_PAGE_LIMIT}`,
    )
    .optional()
    .meta({
      description: `A Keydesk extension: answer one page of at most this many keys (1 to ${MAX_PAGE_LIMIT}); ${DEFAULT_PAGE_LIMIT} when only cursor is given`,
    }),
  cursor: z.string({ error: "must be given once" }).optional().meta({
    description:
      "A Keydesk extension: the nextCursor of the page before, sent with the same account and the same filters, sort and order (limit and include may change); opaque. A cursor of another list (another account's, another query's) or one not given by this service is a 400 naming cursor",
  }),
  sort: z
    .enum(KEY_SORT_FIELDS, { error: `must be one of ${KEY_SORT_FIELDS.join(", ")}, given once` })
    .optional()
    .meta({
      description:
        "A Keydesk extension: the order of the list (created when left out): created (creation order); name (in any case, ASCII case folding); validTo (keys without an end last); state (working keys, then not yet valid, expired, disabled: the state at the time of the request; keys not yet valid by validFrom, the soonest start first, the others by validTo). Ties in creation order. Pages follow with nextCursor (keyset: no key repeated or skipped, except one renamed or edited between pages)",
    }),
  order: z
    .enum(["asc", "desc"], { error: "must be asc or desc, given once" })
    .optional()
    .meta({ description: "A Keydesk extension: asc (the default) or desc, for sort (or creation order)" }),
});

export type CountQuery = z.output<typeof countQuerySchema>;
export type GetQuery = z.output<typeof getQuerySchema>;
export type ListQuery = z.output<typeof listQuerySchema>;
