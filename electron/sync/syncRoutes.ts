import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import {
  createSyncLinkRequestSchema,
  DEFAULT_LOCAL_ONLY_PAGE,
  MAX_LOCAL_ONLY_PAGE,
  pushLocalOnlyRequestSchema,
  resolveConflictRequestSchema,
  SYNC_LINKS_PATH,
  updateSyncLinkRequestSchema,
} from "../../shared/sync.ts";
import { validationErrorsOf } from "../service/domain/apiKeyRecords.ts";
import { badRequest, INVALID_QUERY, notFound } from "../service/errors.ts";
import { auditOriginOf } from "../service/http/auditOrigin.ts";
import type { BasicGuard } from "../service/http/basicAuthGuard.ts";
import { routePath } from "../service/http/methodRoutes.ts";
import type { KeyService } from "../service/keyService.ts";
import type { SyncEngine } from "./syncEngine.ts";

const LINK_PATH = `${SYNC_LINKS_PATH}/:linkId`;

function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw badRequest(
      "the request has invalid fields; see validationErrors",
      validationErrorsOf(parsed.error.issues),
    );
  }
  return parsed.data;
}

function idParam(request: FastifyRequest, name: string, what: string): number {
  const text = (request.params as Record<string, string>)[name] ?? "";
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw notFound(`no ${what} ${text}`);
  return id;
}

/** `limit` (1–1,000, 100 by default) and `cursor` (a nextCursor) of the local-only list. */
function localOnlyPage(request: FastifyRequest): { limit: number; after: number } {
  const query = request.query as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  for (const name of Object.keys(query)) {
    if (name !== "limit" && name !== "cursor") errors[name] = ["is not a known parameter"];
  }
  let limit = DEFAULT_LOCAL_ONLY_PAGE;
  if (query.limit !== undefined) {
    const text = String(query.limit);
    limit = /^\d{1,5}$/.test(text) ? Number(text) : 0;
    if (limit < 1 || limit > MAX_LOCAL_ONLY_PAGE)
      errors.limit = [`must be a whole number from 1 to ${MAX_LOCAL_ONLY_PAGE}`];
  }
  let after = 0;
  if (query.cursor !== undefined) {
    const text = String(query.cursor);
    after = /^[1-9]\d{0,14}$/.test(text) ? Number(text) : 0;
    if (after === 0) errors.cursor = ["must be a nextCursor of an earlier page"];
  }
  if (Object.keys(errors).length > 0) throw badRequest(INVALID_QUERY, errors);
  return { limit, after };
}

const noContent = (reply: FastifyReply) => reply.code(204).send();

/**
 * Sync with a remote instance (`/local/1/sync/links`, a Keydesk route like `/local/1/pins`):
 * links of the accounts the Basic caller manages, "sync now", the per-key sync state with
 * conflict resolution, and the outbox. The remote's password is accepted, never answered.
 */
export function registerSyncRoutes(
  app: FastifyInstance,
  engine: SyncEngine,
  keys: KeyService,
  requireBasic: BasicGuard,
): void {
  const linkOf = async (request: FastifyRequest) => {
    const caller = await requireBasic(request);
    return engine.linkFor(caller, idParam(request, "linkId", "sync link"));
  };

  routePath(app, SYNC_LINKS_PATH, {
    get: async (request) => ({ links: await engine.links(await requireBasic(request)) }),
    post: async (request) => {
      const caller = await requireBasic(request);
      const body = parseBody(createSyncLinkRequestSchema, request.body);
      const account = await keys.resolveAccount(caller, body.accountKey);
      return engine.createLink(account, body);
    },
  });

  routePath(app, LINK_PATH, {
    get: async (request) => engine.toDto(await linkOf(request)),
    put: async (request) => {
      const link = await linkOf(request);
      return engine.updateLink(link, parseBody(updateSyncLinkRequestSchema, request.body));
    },
    delete: async (request, reply) => {
      await engine.deleteLink(await linkOf(request));
      return noContent(reply);
    },
  });

  routePath(app, `${LINK_PATH}/run`, {
    post: async (request) => engine.runNow(await linkOf(request)),
  });

  routePath(app, `${LINK_PATH}/keys`, {
    get: async (request) => ({ keys: await engine.keys(await linkOf(request)) }),
  });

  routePath(app, `${LINK_PATH}/keys/:key/resolve`, {
    post: async (request) => {
      const caller = await requireBasic(request);
      const link = await engine.linkFor(caller, idParam(request, "linkId", "sync link"));
      const { field, take } = parseBody(resolveConflictRequestSchema, request.body);
      const key = (request.params as { key: string }).key;
      return engine.resolve(link, key, field, take, auditOriginOf(request, caller));
    },
  });

  routePath(app, `${LINK_PATH}/local-only`, {
    get: async (request) => {
      const link = await linkOf(request);
      return engine.localOnly(link, localOnlyPage(request));
    },
  });

  routePath(app, `${LINK_PATH}/local-only/push`, {
    post: async (request) => {
      const link = await linkOf(request);
      return {
        queued: await engine.pushLocalOnly(link, parseBody(pushLocalOnlyRequestSchema, request.body)),
      };
    },
  });

  routePath(app, `${LINK_PATH}/outbox`, {
    get: async (request) => ({ entries: await engine.outbox(await linkOf(request)) }),
  });

  routePath(app, `${LINK_PATH}/outbox/:entryId`, {
    delete: async (request, reply) => {
      const link = await linkOf(request);
      await engine.discardEntry(link, idParam(request, "entryId", "outbox entry"));
      return noContent(reply);
    },
  });

  routePath(app, `${LINK_PATH}/outbox/:entryId/retry`, {
    post: async (request) => {
      const link = await linkOf(request);
      return engine.retryEntry(link, idParam(request, "entryId", "outbox entry"));
    },
  });
}
