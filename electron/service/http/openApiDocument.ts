import {
  createApiKeyRequestSchema,
  EXPIRING_SOON_DAYS,
  KEY_INCLUDES,
  KEY_SORT_FIELDS,
  KEY_STATE_FILTERS,
  PERMISSIONS,
  UNUSED_FOR_DAYS_MAX,
  updateApiKeyRequestSchema,
} from "../../../shared/apiKeys.ts";
import { REFUSAL_REASONS } from "../domain/keyUsage.ts";
import { SERIES_DAYS, SERIES_HOURS } from "../domain/keyUsageSeries.ts";
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "../keyService.ts";
import { auditPaths, auditSchemas } from "./openApiAudit.ts";
import {
  BASIC_CHALLENGE,
  errorResponse,
  errorSchemas,
  refusedRequests,
  unroutedAnswers,
} from "./openApiErrors.ts";
import { healthPaths, healthSchemas } from "./openApiHealth.ts";
import { metricsPaths } from "./openApiMetrics.ts";
import { API_DATETIME, json, jsonSchemaOf, ref } from "./openApiParts.ts";
import { syncPaths, syncSchemas } from "./openApiSync.ts";
import { tfaPaths, tfaSchemas } from "./openApiTfa.ts";

/**
 * The OpenAPI 3.1 description of every route, served at /openapi.json. Request bodies come
 * from the same zod schemas the service validates with, so the two cannot drift apart.
 */

const commonErrors = {
  "400": errorResponse("400", "Invalid input; validationErrors names each field and what is wrong with it"),
  "401": errorResponse("401", "Missing or wrong Basic credentials", BASIC_CHALLENGE),
  "403": errorResponse("403", "An API key (App scheme) was used; management takes Basic credentials only"),
  "404": errorResponse(
    "404",
    "Unknown account or key, an account the caller does not manage, or (2FA key) an unknown version",
  ),
  "429": errorResponse(
    "429",
    "Too many failed sign-in attempts from this address, or too many sign-ins being checked at once; see Retry-After",
  ),
  "500": errorResponse("500", "The service failed; nothing was written"),
};
const bodyErrors = {
  "413": errorResponse("413", "Request body over 64 KiB"),
  "415": errorResponse("415", "Request body is not application/json"),
};

const accountKeyParameter = {
  name: "accountKey",
  in: "path",
  required: true,
  description: "`_` for the caller's own account, or the accountKey of a sub-account it manages",
  schema: { type: "string", pattern: "^(_|[0-9A-F]{32})$" },
};
const keyParameter = {
  name: "key",
  in: "path",
  required: true,
  description: "The key's `key` field",
  schema: { type: "string", pattern: "^[0-9A-F]{32}$" },
};
const basicOnly = [{ basic: [] }];
const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes the create safe to retry: the same key with the same request (same caller, path and body) within 24 hours answers the first successful answer again (the same key and publicApiKey) and creates nothing; with a different request it is a 409. Scoped to the authenticated account. Only successful answers are remembered. 1–255 visible ASCII characters (0x21–0x7E), given once.",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7E]+$" },
};
const idempotencyConflict = {
  "409": errorResponse(
    "409",
    "CONFLICT: the Idempotency-Key was already used in the last 24 hours for a different request; use a new key",
  ),
};

const keyFilterParameters = [
  { name: "enabled", in: "query", schema: { type: "string", enum: ["true", "false"] } },
  {
    name: "name",
    in: "query",
    schema: { type: "string" },
    description: "Exact name (spaces as +)",
  },
  { name: "publicApiKey", in: "query", schema: { type: "string" } },
  {
    name: "nameContains",
    in: "query",
    schema: { type: "string", maxLength: 255 },
    description:
      "A Keydesk extension: keys whose name contains this text, in any case; blank means no filter",
  },
  {
    name: "permission",
    in: "query",
    schema: { type: "string", enum: [...PERMISSIONS] },
    description: "A Keydesk extension: keys that carry this permission",
  },
  {
    name: "state",
    in: "query",
    schema: { type: "string", enum: [...KEY_STATE_FILTERS] },
    description: `A Keydesk extension: keys in this state when the request arrives, as App authorization decides it: disabled; not-yet-valid (enabled, before validFrom); expired (enabled, validTo reached); enabled (enabled and inside its validity window); expiring-soon (enabled, and validTo less than ${EXPIRING_SOON_DAYS} days away)`,
  },
  {
    name: "unusedForDays",
    in: "query",
    schema: { type: "string", pattern: "^[0-9]{1,5}$" },
    description: `A Keydesk extension: keys without an allowed App-authorized call in the last N days (1 to ${UNUSED_FOR_DAYS_MAX}); a key never used matches (usage counts from when recording began). Only keys at least N days old match: created N days ago or earlier (for a key whose creation time is not known, come to this service by then). A 400 where the service runs with --usage off`,
  },
];
/** `include` on get, list and page: the extras of our own service's key answers. */
const includeParameter = {
  name: "include",
  in: "query",
  required: false,
  schema: {
    type: "string",
    pattern: `^\\s*(${KEY_INCLUDES.join("|")})\\s*(,\\s*(${KEY_INCLUDES.join("|")})\\s*)*$`,
  },
  description:
    "A Keydesk extension: a comma-separated set of `usage` (the key's usage: calls allowed and refused, last use; a 400 where the service runs with --usage off) and `created` (`createdAt`, the key's creation time, null when it is not known), e.g. `usage,created`. Without it the answer is the spec's",
};
const pagingParameters = [
  {
    name: "limit",
    in: "query",
    schema: { type: "string", pattern: `^[0-9]{1,6}$` },
    description: `A Keydesk extension: answer one page of at most this many keys (1 to ${MAX_PAGE_LIMIT}); ${DEFAULT_PAGE_LIMIT} when only cursor is given`,
  },
  {
    name: "cursor",
    in: "query",
    schema: { type: "string", minLength: 1 },
    description:
      "A Keydesk extension: the nextCursor of the page before, sent with the same account and the same filters, sort and order (limit and include may change); opaque. A cursor of another list (another account's, another query's) or one not given by this service is a 400 naming cursor",
  },
  {
    name: "sort",
    in: "query",
    schema: { type: "string", enum: [...KEY_SORT_FIELDS] },
    description:
      "A Keydesk extension: the order of the list (created when left out): created (creation order); name (in any case, ASCII case folding); validTo (keys without an end last); state (enabled keys before disabled ones, each by validTo). Ties in creation order. Pages follow with nextCursor (keyset: no key repeated or skipped, except one renamed or edited between pages)",
  },
  {
    name: "order",
    in: "query",
    schema: { type: "string", enum: ["asc", "desc"] },
    description: "A Keydesk extension: asc (the default) or desc, for sort (or creation order)",
  },
];

const apiKeySchema = {
  type: "object",
  required: ["name", "key", "publicApiKey", "accountKey", "permissions", "enabled"],
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 255 },
    key: { type: "string", pattern: "^[0-9A-F]{32}$" },
    publicApiKey: {
      type: "string",
      minLength: 1,
      description:
        "The service's own are 32 hex digits, a dash and a UUID; a key mirrored from or created through a sync remote keeps the remote's value",
    },
    accountKey: { type: "string", pattern: "^[0-9A-F]{32}$" },
    allowedIPs: {
      type: "array",
      items: { type: "string" },
      minItems: 1,
      uniqueItems: true,
      description: "Normalized addresses and CIDR ranges; absent when the key has no IP restriction",
    },
    permissions: {
      type: "array",
      items: { type: "string", enum: [...PERMISSIONS] },
      minItems: 1,
      uniqueItems: true,
    },
    validFrom: API_DATETIME,
    validTo: API_DATETIME,
    enabled: { type: "boolean" },
  },
};

/** Counts of App-authorized calls: allowed, and refused by each rule. */
const usageCountsSchema = {
  type: "object",
  required: ["allowed", "refused"],
  additionalProperties: false,
  properties: {
    allowed: { type: "integer", minimum: 0 },
    refused: {
      type: "object",
      required: [...REFUSAL_REASONS],
      additionalProperties: false,
      properties: Object.fromEntries(
        REFUSAL_REASONS.map((reason) => [reason, { type: "integer", minimum: 0 }]),
      ),
    },
  },
};

/** A key's usage (`include=usage`): our own service's extension, never in the spec's default answer. */
const keyUsageSchema = {
  type: "object",
  required: ["lastUsedAt", "lastUsedFrom", "lastRefusedAt", "lastRefusedFrom", "total", "last24Hours"],
  additionalProperties: false,
  description:
    "App-authorized calls of the key since usage recording began (keys older than it count from then), written once a second: a crash loses at most the last second's counts",
  properties: {
    lastUsedAt: { oneOf: [API_DATETIME, { type: "null" }] },
    lastUsedFrom: {
      oneOf: [{ type: "string" }, { type: "null" }],
      description: "The client address of the last allowed call",
    },
    lastRefusedAt: { oneOf: [API_DATETIME, { type: "null" }] },
    lastRefusedFrom: {
      oneOf: [{ type: "string" }, { type: "null" }],
      description: "The client address of the last refused call",
    },
    total: usageCountsSchema,
    last24Hours: { ...usageCountsSchema, description: "The calls of the current hour and the 23 before it" },
  },
};

/** One hour or UTC day of a key's usage series. */
const usageBucketSchema = {
  ...usageCountsSchema,
  required: ["start", ...usageCountsSchema.required],
  properties: {
    start: { ...API_DATETIME, description: "When the hour or the UTC day starts" },
    ...usageCountsSchema.properties,
  },
};

/** A key's usage over time (`…/usage-series`): our own service's extension. */
const keyUsageSeriesSchema = {
  type: "object",
  required: ["hours", "days"],
  additionalProperties: false,
  description:
    "App-authorized calls of the key per hour and per UTC day, oldest first, the current hour and day last; a bucket without calls counts 0. Usage recorded before this service kept days counts from its last 24 hours on",
  properties: {
    hours: {
      type: "array",
      minItems: SERIES_HOURS,
      maxItems: SERIES_HOURS,
      items: usageBucketSchema,
      description: `The current hour and the ${SERIES_HOURS - 1} before it`,
    },
    days: {
      type: "array",
      minItems: SERIES_DAYS,
      maxItems: SERIES_DAYS,
      items: usageBucketSchema,
      description: `The current UTC day and the ${SERIES_DAYS - 1} before it`,
    },
  },
};

/** `metrics`: whether the service serves /metrics (serve --metrics), which is then documented. */
export function buildOpenApiDocument(options: { metrics?: boolean } = {}) {
  return withStorageFailures({
    openapi: "3.1.0",
    ...unroutedAnswers,
    ...refusedRequests,
    info: {
      title: "Keydesk key service",
      version: "1.0.0",
      description:
        "API key management (create, list, get, update) and the 2FA key endpoint, as implemented by Keydesk's key service, plus the local 2FA simulator (the provider's 2FA v2 routes; messages are captured, never sent) and its PIN inbox.",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        basic: { type: "http", scheme: "basic", description: "The account's username and password" },
        app: { type: "apiKey", in: "header", name: "Authorization", description: "`App <publicApiKey>`" },
      },
      schemas: {
        ApiKey: apiKeySchema,
        ApiKeyWithExtras: {
          ...apiKeySchema,
          description: "A key with what include= asked for (at least one of createdAt and usage)",
          // At least one extra: exactly one of ApiKey (closed, none) and this matches a key.
          anyOf: [{ required: ["createdAt"] }, { required: ["usage"] }],
          properties: {
            ...apiKeySchema.properties,
            createdAt: {
              oneOf: [API_DATETIME, { type: "null" }],
              description:
                "When the key was created; null when that is not known (a key copied here by a sync pull, or from before Keydesk recorded it)",
            },
            usage: ref("KeyUsage"),
          },
        },
        KeyUsage: keyUsageSchema,
        KeyUsageSeries: keyUsageSeriesSchema,
        ApiKeyList: {
          type: "object",
          required: ["apiKeys"],
          additionalProperties: false,
          properties: { apiKeys: { type: "array", items: ref("ListedApiKey") } },
        },
        ListedApiKey: { oneOf: [ref("ApiKey"), ref("ApiKeyWithExtras")] },
        ApiKeyPage: {
          type: "object",
          required: ["apiKeys", "nextCursor"],
          additionalProperties: false,
          properties: {
            apiKeys: { type: "array", items: ref("ListedApiKey") },
            nextCursor: {
              oneOf: [{ type: "string", minLength: 1 }, { type: "null" }],
              description:
                "Pass as `cursor`, with the same account and query, to get the next page; null on the last page",
            },
          },
        },
        ApiKeyCount: {
          type: "object",
          required: ["count"],
          additionalProperties: false,
          properties: { count: { type: "integer", minimum: 0 } },
        },
        ...tfaSchemas,
        ...syncSchemas,
        ...auditSchemas,
        ...healthSchemas,
        LocalAccountList: {
          type: "object",
          required: ["accounts"],
          additionalProperties: false,
          properties: {
            accounts: {
              type: "array",
              items: {
                type: "object",
                required: ["accountKey", "username", "parentAccountKey"],
                additionalProperties: false,
                properties: {
                  accountKey: { type: "string", pattern: "^[0-9A-F]{32}$" },
                  username: { type: "string" },
                  parentAccountKey: {
                    oneOf: [{ type: "string", pattern: "^[0-9A-F]{32}$" }, { type: "null" }],
                    description: "null for the caller's own account",
                  },
                },
              },
            },
          },
        },
        CreateApiKeyRequest: jsonSchemaOf(createApiKeyRequestSchema),
        UpdateApiKeyRequest: jsonSchemaOf(updateApiKeyRequestSchema),
        ...errorSchemas,
      },
    },
    paths: {
      "/settings/1/accounts/{accountKey}/api-keys": {
        parameters: [accountKeyParameter],
        get: {
          operationId: "listApiKeys",
          summary: "List the account's keys in creation order, or look one up by name or publicApiKey",
          description:
            "Without `limit` or `cursor` every matching key is answered in one `{apiKeys}` list (streamed: it may arrive in chunks, and a service that stops meanwhile cuts it short). With `limit` and/or `cursor` (a Keydesk extension) the answer is one page with `nextCursor`. Pages are positions in creation order: keys created while a client pages appear on a later page, none is answered twice or skipped.",
          security: basicOnly,
          parameters: [...keyFilterParameters, ...pagingParameters, includeParameter],
          responses: {
            "200": {
              description: "The matching keys; a page with nextCursor when limit or cursor was given",
              content: json({ oneOf: [ref("ApiKeyList"), ref("ApiKeyPage")] }),
            },
            ...commonErrors,
          },
        },
        post: {
          operationId: "createApiKey",
          summary: "Create a key; permissions default to [ALL]",
          security: basicOnly,
          parameters: [idempotencyKeyParameter],
          requestBody: { required: true, content: json(ref("CreateApiKeyRequest")) },
          responses: {
            "200": { description: "The new key", content: json(ref("ApiKey")) },
            ...commonErrors,
            ...idempotencyConflict,
            ...bodyErrors,
          },
        },
      },
      "/settings/1/accounts/{accountKey}/api-keys/{key}": {
        parameters: [accountKeyParameter, keyParameter],
        get: {
          operationId: "getApiKey",
          summary: "Get one key",
          security: basicOnly,
          parameters: [includeParameter],
          responses: {
            "200": {
              description: "The key; with include=, its usage and/or creation time too",
              content: json(ref("ListedApiKey")),
            },
            ...commonErrors,
          },
        },
        put: {
          operationId: "updateApiKey",
          summary: "Update a key: sent fields replace stored ones, absent fields are kept, null clears",
          security: basicOnly,
          requestBody: { required: true, content: json(ref("UpdateApiKeyRequest")) },
          responses: {
            "200": { description: "The key after the update", content: json(ref("ApiKey")) },
            ...commonErrors,
            ...bodyErrors,
          },
        },
      },
      "/2fa/{version}/api-key": {
        parameters: [
          { name: "version", in: "path", required: true, schema: { type: "string", enum: ["1", "2"] } },
        ],
        post: {
          operationId: "createTfaApiKey",
          summary: "Create a key with permissions [TFA] in the caller's account and answer its publicApiKey",
          security: basicOnly,
          parameters: [idempotencyKeyParameter],
          responses: {
            "200": { description: "The new key's publicApiKey", content: json({ type: "string" }) },
            ...commonErrors,
            ...idempotencyConflict,
            ...bodyErrors,
          },
        },
      },
      ...tfaPaths,
      ...syncPaths,
      ...auditPaths,
      ...healthPaths,
      ...(options.metrics && metricsPaths),
      "/local/1/accounts/{accountKey}/api-keys/count": {
        parameters: [accountKeyParameter],
        get: {
          tags: ["Accounts"],
          operationId: "countApiKeys",
          summary: "How many of the account's keys the list's filters match (a Keydesk extension)",
          security: basicOnly,
          parameters: keyFilterParameters,
          responses: {
            "200": { description: "The number of matching keys", content: json(ref("ApiKeyCount")) },
            ...commonErrors,
          },
        },
      },
      "/local/1/accounts/{accountKey}/api-keys/{key}/usage-series": {
        parameters: [accountKeyParameter, keyParameter],
        get: {
          tags: ["Accounts"],
          operationId: "getApiKeyUsageSeries",
          summary:
            "A key's App-authorized calls, allowed and refused, per hour over the last 48 hours and per UTC day over the last 30 days (a Keydesk extension)",
          security: basicOnly,
          responses: {
            "200": { description: "The key's usage series", content: json(ref("KeyUsageSeries")) },
            ...commonErrors,
            "400": errorResponse(
              "400",
              "A query parameter (this operation takes none), or the service runs with --usage off",
            ),
          },
        },
      },
      "/local/1/accounts": {
        get: {
          tags: ["Accounts"],
          operationId: "listLocalAccounts",
          summary:
            "The caller's own account, then every sub-account it manages (any depth) in creation order",
          security: basicOnly,
          responses: {
            "200": { description: "The accounts", content: json(ref("LocalAccountList")) },
            "401": commonErrors["401"],
            "403": commonErrors["403"],
            "429": commonErrors["429"],
            "500": commonErrors["500"],
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          security: [],
          responses: {
            "200": {
              description: "OpenAPI 3.1 document",
              content: json({ type: "object", required: ["openapi", "info", "paths"] }),
            },
          },
        },
      },
    },
  });
}

const storageFailureAnswer = errorResponse(
  "503",
  "The database file is damaged, or its disk is full: the text names the file and what to do; nothing was written",
);

/**
 * Every operation that touches the database may find its file damaged or its disk full: each that
 * documents a 500 documents that 503 too (operations added later included).
 */
function withStorageFailures<T extends { paths: Record<string, Record<string, unknown>> }>(document: T): T {
  for (const item of Object.values(document.paths))
    for (const operation of Object.values(item)) {
      const responses = (operation as { responses?: Record<string, unknown> }).responses;
      if (responses?.["500"]) responses["503"] = storageFailureAnswer;
    }
  return document;
}
