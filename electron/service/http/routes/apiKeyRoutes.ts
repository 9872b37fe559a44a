import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { SERVICE_ROUTES } from "../../../../shared/servicePaths.ts";
import { badRequest, INVALID_BODY, notFound } from "../../errors.ts";
import {
  countQuerySchema,
  getQuerySchema,
  listQuerySchema,
  usageSeriesQuerySchema,
} from "../../keyQueries.ts";
import type { KeyService } from "../../keyService.ts";
import { auditOriginOf } from "../auditOrigin.ts";
import type { BasicGuard } from "../basicAuthGuard.ts";
import { idempotencyKeyHeaders, idempotencyKeyOf } from "../idempotencyKeyHeader.ts";
import { routePath } from "../methodRoutes.ts";
import { errorResponse } from "../openApiErrors.ts";
import {
  accountKeyParam,
  documented,
  jsonContent,
  keyParam,
  OPTIONAL_BODY,
  pathParam,
} from "../routeSchemas.ts";
import {
  apiKey,
  apiKeyCount,
  apiKeyList,
  apiKeyPage,
  createApiKeyRequest,
  keyUsageSeries,
  listedApiKey,
  updateApiKeyRequest,
} from "./apiKeySchemas.ts";
import { basicOnly, bodyErrors, commonErrors } from "./commonErrors.ts";
import { keyListSender } from "./keyListStream.ts";

const accountParams = z.object({ accountKey: accountKeyParam });
const keyParams = z.object({ accountKey: accountKeyParam, key: keyParam });

const idempotencyConflict = {
  409: errorResponse(
    "409",
    "CONFLICT: the Idempotency-Key was already used in the last 24 hours for a different request; use a new key",
  ),
};

const API_KEYS_PATH = SERVICE_ROUTES.apiKeys;
const API_KEY_PATH = SERVICE_ROUTES.apiKey;
const API_KEY_COUNT_PATH = SERVICE_ROUTES.apiKeyCount;
const API_KEY_USAGE_SERIES_PATH = SERVICE_ROUTES.apiKeyUsageSeries;
const TFA_API_KEY_PATH = SERVICE_ROUTES.tfaApiKey;
const TFA_API_KEY_VERSIONS = ["1", "2"] as const;

/** The 2FA key call's body: none (the provider's takes none), or `{}`. */
const noBody = z.strictObject({}).meta({ description: "Nothing: send no body, or {}" });
const BODY_MUST_BE_EMPTY = { body: ["must be empty"] };

/** The key-management API: create, list/look up, get, update, and the 2FA key shortcut. */
export function registerApiKeyRoutes(app: FastifyInstance, keys: KeyService, caller: BasicGuard): void {
  const sendList = keyListSender(app, keys);

  // What the key routes answer before their query and body: credentials, then the account the
  // path names (then its key).
  const accountOf = async (request: FastifyRequest) => {
    const signedIn = await caller(request);
    return {
      caller: signedIn,
      account: await keys.resolveAccount(signedIn, pathParam(request, "accountKey")),
    };
  };
  const keyOf = async (request: FastifyRequest) => {
    const found = await accountOf(request);
    return { ...found, stored: await keys.storedKey(found.account, pathParam(request, "key")) };
  };

  routePath(app, API_KEYS_PATH, {
    get: documented(
      {
        operationId: "listApiKeys",
        summary: "List the account's keys in creation order, or look one up by name or publicApiKey",
        description:
          "Without `limit` or `cursor` every matching key is answered in one `{apiKeys}` list (streamed: it may arrive in chunks, and a service that stops meanwhile cuts it short). With `limit` and/or `cursor` (a Keydesk extension) the answer is one page with `nextCursor`. Pages are positions in creation order: keys created while a client pages appear on a later page, none is answered twice or skipped.",
        security: basicOnly,
        params: accountParams,
        querystring: listQuerySchema,
        response: {
          200: {
            description: "The matching keys; a page with nextCursor when limit or cursor was given",
            content: jsonContent(z.union([apiKeyList, apiKeyPage])),
          },
          ...commonErrors,
        },
      },
      {
        before: accountOf,
        handler: async (request, reply, { account }) => {
          const list = keys.listRequest(account, request.query);
          if (list.page) return reply.type("application/json; charset=utf-8").send(await keys.pageText(list));
          return sendList(request, reply, list);
        },
      },
    ),
    post: documented(
      {
        operationId: "createApiKey",
        summary: "Create a key; permissions default to [ALL]",
        security: basicOnly,
        params: accountParams,
        headers: idempotencyKeyHeaders,
        body: createApiKeyRequest,
        response: {
          200: { description: "The new key", content: jsonContent(apiKey) },
          ...commonErrors,
          ...idempotencyConflict,
          ...bodyErrors,
        },
      },
      {
        before: async (request: FastifyRequest) => {
          const signedIn = await caller(request);
          const idempotencyKey = idempotencyKeyOf(request);
          const account = await keys.resolveAccount(signedIn, pathParam(request, "accountKey"));
          // The body as it came (before validation parses it) is what an Idempotency-Key stands for.
          return { caller: signedIn, account, idempotencyKey, body: request.body };
        },
        handler: (request, _reply, { caller: signedIn, account, idempotencyKey, body }) =>
          keys.create(signedIn, account, request.body, {
            body,
            idempotencyKey,
            origin: auditOriginOf(request, signedIn),
          }),
      },
    ),
  });

  routePath(app, API_KEY_COUNT_PATH, {
    get: documented(
      {
        tags: ["Accounts"],
        operationId: "countApiKeys",
        summary: "How many of the account's keys the list's filters match (a Keydesk extension)",
        security: basicOnly,
        params: accountParams,
        querystring: countQuerySchema,
        response: {
          200: { description: "The number of matching keys", content: jsonContent(apiKeyCount) },
          ...commonErrors,
        },
      },
      {
        before: accountOf,
        handler: (request, reply, { account }) => {
          // A count the client no longer waits for stops at its next step.
          const controller = new AbortController();
          reply.raw.once("close", () => controller.abort());
          return keys.count(account, request.query, controller.signal);
        },
      },
    ),
  });

  routePath(app, API_KEY_PATH, {
    get: documented(
      {
        operationId: "getApiKey",
        summary: "Get one key",
        security: basicOnly,
        params: keyParams,
        querystring: getQuerySchema,
        response: {
          200: {
            description: "The key; with include=, its usage and/or creation time too",
            content: jsonContent(listedApiKey),
          },
          ...commonErrors,
        },
      },
      { before: keyOf, handler: (request, _reply, { stored }) => keys.get(stored, request.query) },
    ),
    put: documented(
      {
        operationId: "updateApiKey",
        summary: "Update a key: sent fields replace stored ones, absent fields are kept, null clears",
        security: basicOnly,
        params: keyParams,
        body: updateApiKeyRequest,
        response: {
          200: { description: "The key after the update", content: jsonContent(apiKey) },
          ...commonErrors,
          ...bodyErrors,
        },
      },
      {
        before: keyOf,
        handler: (request, _reply, { caller: signedIn, account }) =>
          keys.update(signedIn, account, request.params.key, request.body, auditOriginOf(request, signedIn)),
      },
    ),
  });

  routePath(app, API_KEY_USAGE_SERIES_PATH, {
    get: documented(
      {
        tags: ["Accounts"],
        operationId: "getApiKeyUsageSeries",
        summary:
          "A key's App-authorized calls, allowed and refused, per hour over the last 48 hours and per UTC day over the last 30 days (a Keydesk extension)",
        security: basicOnly,
        params: keyParams,
        querystring: usageSeriesQuerySchema,
        response: {
          200: { description: "The key's usage series", content: jsonContent(keyUsageSeries) },
          ...commonErrors,
          400: errorResponse(
            "400",
            "A query parameter (this operation takes none), or the service runs with --usage off",
          ),
        },
      },
      { before: keyOf, handler: (_request, _reply, { stored }) => keys.usageSeries(stored) },
    ),
  });

  routePath(app, TFA_API_KEY_PATH, {
    post: documented(
      {
        operationId: "createTfaApiKey",
        summary: "Create a key with permissions [TFA] in the caller's account and answer its publicApiKey",
        security: basicOnly,
        params: z.object({ version: z.enum(TFA_API_KEY_VERSIONS) }),
        headers: idempotencyKeyHeaders,
        body: noBody,
        ...OPTIONAL_BODY,
        response: {
          200: { description: "The new key's publicApiKey", content: jsonContent(z.string()) },
          ...commonErrors,
          ...idempotencyConflict,
          ...bodyErrors,
        },
      },
      {
        // The version before the credentials: an unknown one names no route there is.
        before: async (request: FastifyRequest) => {
          const version = pathParam(request, "version");
          if (!(TFA_API_KEY_VERSIONS as readonly string[]).includes(version)) {
            throw notFound(`no 2FA API version ${version}; use ${TFA_API_KEY_VERSIONS.join(" or ")}`);
          }
          const resolved = { account: await caller(request), idempotencyKey: idempotencyKeyOf(request) };
          // Validation sees a JSON `null` as it sees no body (Fastify hands both over as null); a
          // body sent must be {}, as the provider's takes none.
          if (request.body === null) throw badRequest(INVALID_BODY, BODY_MUST_BE_EMPTY);
          return resolved;
        },
        fieldNames: () => BODY_MUST_BE_EMPTY,
        handler: async (request, reply, { account, idempotencyKey }) => {
          // The answer is a bare JSON string; serialize it ourselves so it is not sent as text/plain.
          return reply.type("application/json; charset=utf-8").send(
            JSON.stringify(
              await keys.createTfaKey(account, {
                version: request.params.version,
                idempotencyKey,
                origin: auditOriginOf(request, account),
              }),
            ),
          );
        },
      },
    ),
  });
}
