import { z } from "zod";
import {
  createApiKeyRequestSchema,
  KEY_ID_PATTERN,
  NAME_MAX_LENGTH,
  PERMISSIONS,
  updateApiKeyRequestSchema,
} from "../../../../shared/apiKeys.ts";
import { REFUSAL_REASONS } from "../../domain/keyUsage.ts";
import { SERIES_DAYS, SERIES_HOURS } from "../../domain/keyUsageSeries.ts";
import { apiDateTime, component } from "../routeSchemas.ts";

/** The answers of the key-management routes (apiKeyRoutes.ts), as the document's components. */

const hex32 = z.string().regex(KEY_ID_PATTERN);
const count = z.number().int().min(0);

export const createApiKeyRequest = component("CreateApiKeyRequest", createApiKeyRequestSchema, {
  io: "input",
});
export const updateApiKeyRequest = component("UpdateApiKeyRequest", updateApiKeyRequestSchema, {
  io: "input",
});

const apiKeyShape = {
  name: z.string().min(1).max(NAME_MAX_LENGTH),
  key: hex32,
  publicApiKey: z.string().min(1).meta({
    description:
      "The service's own are 32 hex digits, a dash and a UUID; a key mirrored from or created through a sync remote keeps the remote's value",
  }),
  accountKey: hex32,
  allowedIPs: z
    .array(z.string())
    .min(1)
    .meta({
      uniqueItems: true,
      description: "Normalized addresses and CIDR ranges; absent when the key has no IP restriction",
    })
    .optional(),
  permissions: z.array(z.enum(PERMISSIONS)).min(1).meta({ uniqueItems: true }),
  validFrom: apiDateTime.optional(),
  validTo: apiDateTime.optional(),
  enabled: z.boolean(),
};

export const apiKey = component("ApiKey", z.strictObject(apiKeyShape));

/** Counts of App-authorized calls: allowed, and refused by each rule. */
const usageCounts = z.strictObject({
  allowed: count,
  refused: z.strictObject(Object.fromEntries(REFUSAL_REASONS.map((reason) => [reason, count]))),
});

/** A key's usage (`include=usage`): our own service's extension, never in the spec's default answer. */
const keyUsage = component(
  "KeyUsage",
  z.strictObject({
    lastUsedAt: z.union([apiDateTime, z.null()]),
    lastUsedFrom: z
      .union([z.string(), z.null()])
      .meta({ description: "The client address of the last allowed call" }),
    lastRefusedAt: z.union([apiDateTime, z.null()]),
    lastRefusedFrom: z
      .union([z.string(), z.null()])
      .meta({ description: "The client address of the last refused call" }),
    total: usageCounts,
    last24Hours: usageCounts.meta({ description: "The calls of the current hour and the 23 before it" }),
  }),
  {
    description:
      "App-authorized calls of the key since usage recording began (keys older than it count from then), written once a second: a crash loses at most the last second's counts",
  },
);

const apiKeyWithExtras = component(
  "ApiKeyWithExtras",
  z
    .strictObject({
      ...apiKeyShape,
      createdAt: z
        .union([apiDateTime, z.null()])
        .meta({
          description:
            "When the key was created; null when that is not known (a key copied here by a sync pull, or from before Keydesk recorded it)",
        })
        .optional(),
      usage: keyUsage.optional(),
    })
    // At least one extra: exactly one of ApiKey (closed, none) and this matches a key.
    .meta({ anyOf: [{ required: ["createdAt"] }, { required: ["usage"] }] }),
  { description: "A key with what include= asked for (at least one of createdAt and usage)" },
);

export const listedApiKey = component("ListedApiKey", z.union([apiKey, apiKeyWithExtras]));

export const apiKeyList = component("ApiKeyList", z.strictObject({ apiKeys: z.array(listedApiKey) }));

export const apiKeyPage = component(
  "ApiKeyPage",
  z.strictObject({
    apiKeys: z.array(listedApiKey),
    nextCursor: z.union([z.string().min(1), z.null()]).meta({
      description:
        "Pass as `cursor`, with the same account and query, to get the next page; null on the last page",
    }),
  }),
);

export const apiKeyCount = component("ApiKeyCount", z.strictObject({ count }));

/** One hour or UTC day of a key's usage series. */
const usageBucket = z.strictObject({
  start: apiDateTime.meta({ description: "When the hour or the UTC day starts" }),
  ...usageCounts.shape,
});

export const keyUsageSeries = component(
  "KeyUsageSeries",
  z.strictObject({
    hours: z
      .array(usageBucket)
      .length(SERIES_HOURS)
      .meta({ description: `The current hour and the ${SERIES_HOURS - 1} before it` }),
    days: z
      .array(usageBucket)
      .length(SERIES_DAYS)
      .meta({ description: `The current UTC day and the ${SERIES_DAYS - 1} before it` }),
  }),
  {
    description:
      "App-authorized calls of the key per hour and per UTC day, oldest first, the current hour and day last; a bucket without calls counts 0. Usage recorded before this service kept days counts from its last 24 hours on",
  },
);
