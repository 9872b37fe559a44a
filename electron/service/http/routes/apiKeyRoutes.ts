import type { FastifyInstance } from "fastify";
import { badRequest, notFound } from "../../errors.ts";
import type { KeyService } from "../../keyService.ts";
import type { BasicGuard } from "../basicAuthGuard.ts";
import { idempotencyKeyOf } from "../idempotencyKeyHeader.ts";
import { routePath } from "../methodRoutes.ts";

type AccountParams = { accountKey: string };
type KeyParams = { accountKey: string; key: string };

export const API_KEYS_PATH = "/settings/1/accounts/:accountKey/api-keys";
export const API_KEY_PATH = `${API_KEYS_PATH}/:key`;
export const TFA_API_KEY_PATH = "/2fa/:version/api-key";
export const TFA_API_KEY_VERSIONS = ["1", "2"];

/** The key-management API: create, list/look up, get, update, and the 2FA key shortcut. */
export function registerApiKeyRoutes(app: FastifyInstance, keys: KeyService, caller: BasicGuard): void {
  routePath(app, API_KEYS_PATH, {
    get: async (request) => {
      const { accountKey } = request.params as AccountParams;
      return keys.list(await caller(request), accountKey, request.query);
    },
    post: async (request) => {
      const { accountKey } = request.params as AccountParams;
      const account = await caller(request);
      return keys.create(account, accountKey, request.body, idempotencyKeyOf(request));
    },
  });

  routePath(app, API_KEY_PATH, {
    get: async (request) => {
      const { accountKey, key } = request.params as KeyParams;
      return keys.get(await caller(request), accountKey, key);
    },
    put: async (request) => {
      const { accountKey, key } = request.params as KeyParams;
      return keys.update(await caller(request), accountKey, key, request.body);
    },
  });

  routePath(app, TFA_API_KEY_PATH, {
    post: async (request, reply) => {
      const { version } = request.params as { version: string };
      if (!TFA_API_KEY_VERSIONS.includes(version)) {
        throw notFound(`no 2FA API version ${version}; use ${TFA_API_KEY_VERSIONS.join(" or ")}`);
      }
      const account = await caller(request);
      const idempotencyKey = idempotencyKeyOf(request);
      if (request.body !== undefined && !isEmptyObject(request.body)) {
        throw badRequest("this call takes no request body (send none, or {})", { body: ["must be empty"] });
      }
      // The answer is a bare JSON string; serialize it ourselves so it is not sent as text/plain.
      return reply
        .type("application/json; charset=utf-8")
        .send(JSON.stringify(await keys.createTfaKey(account, { version, idempotencyKey })));
    },
  });
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}
