import { z } from "zod";
import { answerFields } from "./answerFields.ts";
import {
  ANY_ID_PATTERN,
  KEY_ID_PATTERN,
  NAME_MAX_LENGTH,
  PERMISSIONS,
  REFUSAL_REASONS,
  type RefusalReasonName,
  SERIES_DAYS,
  SERIES_HOURS,
} from "./apiKeyFields.ts";

/**
 * The answers of the key-management API (a key, its usage, a list, a page, a count, a usage series),
 * one set of fields for both sides (see answerFields.ts): the key service declares them strict, the
 * HTTP client checks any service's answers with them lenient. Lenient also means what the spec
 * leaves open: ids in any service's spelling, names and lists as that service keeps them.
 */
export function apiKeyAnswerSchemas(strict: boolean) {
  const { object, promised, dateTime } = answerFields(strict);
  const count = z.number().int().min(0);
  const id = promised(z.string().regex(KEY_ID_PATTERN), z.string().regex(ANY_ID_PATTERN));
  const nullable = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);
  const uniqueItems = <T extends z.ZodType>(items: T) =>
    promised(z.array(items).min(1).meta({ uniqueItems: true }), z.array(items));

  const apiKey = object({
    name: promised(z.string().min(1).max(NAME_MAX_LENGTH), z.string()),
    key: id,
    publicApiKey: z.string().min(1).meta({
      description:
        "The service's own are 32 hex digits, a dash and a UUID; a key mirrored from or created through a sync remote keeps the remote's value",
    }),
    accountKey: id,
    allowedIPs: uniqueItems(z.string())
      .meta({
        description: "Normalized addresses and CIDR ranges; absent when the key has no IP restriction",
      })
      .optional(),
    permissions: uniqueItems(z.enum(PERMISSIONS)),
    validFrom: dateTime.optional(),
    validTo: dateTime.optional(),
    enabled: z.boolean(),
  });

  /** Counts of App-authorized calls: allowed, and refused by each rule. */
  const usageCounts = object({
    allowed: count,
    refused: object(
      Object.fromEntries(REFUSAL_REASONS.map((reason) => [reason, count])) as Record<
        RefusalReasonName,
        typeof count
      >,
    ),
  });

  /** A key's usage (`include=usage`): our own service's extension, never in the spec's default answer. */
  const keyUsage = object({
    lastUsedAt: nullable(dateTime),
    lastUsedFrom: nullable(z.string()).meta({ description: "The client address of the last allowed call" }),
    lastRefusedAt: nullable(dateTime),
    lastRefusedFrom: nullable(z.string()).meta({
      description: "The client address of the last refused call",
    }),
    total: usageCounts,
    last24Hours: usageCounts.meta({ description: "The calls of the current hour and the 23 before it" }),
  });

  const createdAt = nullable(dateTime).meta({
    description:
      "When the key was created; null when that is not known (a key copied here by a sync pull, or from before Keydesk recorded it)",
  });
  /**
   * A key with what include= asked for. Our own service's extras: the client drops, not refuses,
   * an extra a service spells otherwise.
   */
  const apiKeyWithExtras = object({
    ...apiKey.shape,
    createdAt: promised(createdAt.optional(), createdAt.optional().catch(undefined)),
    usage: promised(keyUsage.optional(), keyUsage.optional().catch(undefined)),
  });

  const cursor = promised(
    nullable(z.string().min(1)).meta({
      description:
        "Pass as `cursor`, with the same account and query, to get the next page; null on the last page",
    }),
    // A service that does not page leaves it out: the client then has the whole list.
    nullable(z.string().min(1).max(512)).optional(),
  );

  /** One hour or UTC day of a key's usage series. */
  const usageBucket = object({
    start: dateTime.meta({ description: "When the hour or the UTC day starts" }),
    ...usageCounts.shape,
  });
  const series = (length: number) =>
    promised(z.array(usageBucket).length(length), z.array(usageBucket).max(1_000));
  const keyUsageSeries = object({
    hours: series(SERIES_HOURS).meta({
      description: `The current hour and the ${SERIES_HOURS - 1} before it`,
    }),
    days: series(SERIES_DAYS).meta({
      description: `The current UTC day and the ${SERIES_DAYS - 1} before it`,
    }),
  });

  return {
    apiKey,
    usageCounts,
    keyUsage,
    apiKeyWithExtras,
    /** The list, its keys as `listed` (the service: with or without extras; the client: with). */
    apiKeyList: <Listed extends z.ZodType>(listed: Listed) => object({ apiKeys: z.array(listed) }),
    apiKeyPage: <Listed extends z.ZodType>(listed: Listed) =>
      object({ apiKeys: z.array(listed), nextCursor: cursor }),
    apiKeyCount: object({ count }),
    keyUsageSeries,
  };
}
