import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { DEFAULT_LOCAL_ONLY_PAGE, SYNC_LINKS_PATH } from "../../shared/sync.ts";
import { validationErrorsOf } from "../service/domain/apiKeyRecords.ts";
import { badRequest, INVALID_QUERY, notFound } from "../service/errors.ts";
import { auditOriginOf } from "../service/http/auditOrigin.ts";
import type { BasicGuard } from "../service/http/basicAuthGuard.ts";
import { routePath } from "../service/http/methodRoutes.ts";
import {
  BASIC_CHALLENGE,
  basicOnly,
  bodyErrors,
  commonErrors,
  type ErrorStatus,
  errorResponse,
} from "../service/http/openApiErrors.ts";
import { type DeclaredResponse, documented, jsonContent } from "../service/http/routeSchemas.ts";
import type { KeyService } from "../service/keyService.ts";
import type { SyncEngine } from "./syncEngine.ts";
import {
  createSyncLinkRequest,
  localOnlyKeyPage,
  localOnlyQuerySchema,
  pushLocalOnlyAnswer,
  pushLocalOnlyRequest,
  resolveConflictRequest,
  syncKey,
  syncKeyList,
  syncLink,
  syncLinkList,
  syncOutbox,
  syncOutboxEntry,
  updateSyncLinkRequest,
} from "./syncRouteSchemas.ts";

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

/** A link's or an outbox entry's id as the path names it: anything else names none (404). */
function idOf(text: string, what: string): number {
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw notFound(`no ${what} ${text}`);
  return id;
}

/** The page of the local-only list its query asks for (localOnlyQuerySchema). */
function localOnlyPage(query: unknown): { limit: number; after: number } {
  const parsed = localOnlyQuerySchema.safeParse(query ?? {});
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys")
        for (const name of issue.keys) errors[name] = ["is not a known parameter"];
      else errors[String(issue.path[0])] ??= [issue.message];
    }
    throw badRequest(INVALID_QUERY, errors);
  }
  return { limit: parsed.data.limit ?? DEFAULT_LOCAL_ONLY_PAGE, after: parsed.data.cursor ?? 0 };
}

const noContent = (reply: FastifyReply) => reply.code(204).send();

const id = z.string().regex(/^[1-9][0-9]*$/);
const linkParams = z.object({ linkId: id });
const keyParams = z.object({ linkId: id, key: z.string().meta({ description: "The local key id" }) });
const entryParams = z.object({ linkId: id, entryId: id });

const errors: Record<string, DeclaredResponse> = {
  400: errorResponse(
    "400",
    "Invalid input (a body that is not JSON, or fields that are wrong); validationErrors names each field",
  ),
  401: errorResponse("401", "Missing or wrong Basic credentials", BASIC_CHALLENGE),
  403: errorResponse("403", "An API key was used; sync takes the account's Basic credentials only"),
  404: errorResponse("404", "No such link, key or outbox entry among the accounts the caller manages"),
  ...bodyErrors,
  429: commonErrors["429"],
  500: errorResponse("500", "The service failed; nothing was written"),
};

/**
 * The refusals of each kind of operation. Every method but GET has its body read (and refused
 * when it is too large, not JSON or broken) before the operation runs, even where it takes none.
 */
const LIST: ErrorStatus[] = ["401", "403", "429", "500"];
const READ_ONE: ErrorStatus[] = ["401", "403", "404", "429", "500"];
const WRITE: ErrorStatus[] = ["400", "401", "403", "404", "413", "415", "429", "500"];

/** Links that would make the service call a remote it is not allowed to (serve --sync-remote-allow). */
const REMOTE_NOT_ALLOWED =
  "An API key was used (sync takes Basic credentials only), or remote.baseUrl is outside the remotes this service may link to (its --sync-remote-allow option)";

const ok = (description: string, schema: z.ZodType): DeclaredResponse => ({
  description,
  content: jsonContent(schema),
});
const NO_CONTENT: DeclaredResponse = { description: "Done; no body" };

/** A sync operation: Basic credentials, its answer, its refusals. */
const operation = <const S extends object>(
  operationId: string,
  summary: string,
  schema: S,
  answer: Record<number, DeclaredResponse>,
  refusals: { statuses: ErrorStatus[]; conflict?: string; forbidden?: string },
) => ({
  tags: ["Sync"],
  operationId,
  summary,
  security: basicOnly,
  ...schema,
  response: {
    ...answer,
    ...Object.fromEntries(refusals.statuses.map((status) => [status, errors[status]])),
    ...(refusals.conflict && { 409: errorResponse("409", refusals.conflict) }),
    ...(refusals.forbidden && { 403: errorResponse("403", refusals.forbidden) }),
  },
});

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
  const linkOf = async (request: FastifyRequest, linkId: string) => {
    const caller = await requireBasic(request);
    return engine.linkFor(caller, idOf(linkId, "sync link"));
  };

  routePath(app, SYNC_LINKS_PATH, {
    get: documented(
      operation(
        "listSyncLinks",
        "The sync links of the accounts the caller manages",
        {},
        { 200: ok("The links", syncLinkList) },
        { statuses: LIST },
      ),
      async (request) => ({ links: await engine.links(await requireBasic(request)) }),
    ),
    post: documented(
      operation(
        "createSyncLink",
        "Link a local account to an account of a remote instance; the remote is checked first (reachable, credentials accepted, account theirs to manage: a failed check is a 400 naming the part that failed, and nothing is stored; check: false skips it); the first run starts at once",
        { body: createSyncLinkRequest },
        { 200: ok("The new link", syncLink) },
        {
          statuses: WRITE,
          conflict: "The account is already linked (one link per account)",
          forbidden: REMOTE_NOT_ALLOWED,
        },
      ),
      async (request) => {
        const caller = await requireBasic(request);
        const body = parseBody(createSyncLinkRequest, request.body);
        const account = await keys.resolveAccount(caller, body.accountKey);
        return engine.createLink(account, body);
      },
    ),
  });

  routePath(app, LINK_PATH, {
    get: documented(
      operation(
        "getSyncLink",
        "One link and its state",
        { params: linkParams },
        { 200: ok("The link", syncLink) },
        { statuses: READ_ONE },
      ),
      async (request) => engine.toDto(await linkOf(request, request.params.linkId)),
    ),
    put: documented(
      operation(
        "updateSyncLink",
        "Change the remote's credentials (resumes a link paused by a 401), the interval, or pause/resume",
        { params: linkParams, body: updateSyncLinkRequest },
        { 200: ok("The link", syncLink) },
        { statuses: WRITE, forbidden: REMOTE_NOT_ALLOWED },
      ),
      async (request) => {
        const link = await linkOf(request, request.params.linkId);
        return engine.updateLink(link, parseBody(updateSyncLinkRequest, request.body));
      },
    ),
    delete: documented(
      operation(
        "deleteSyncLink",
        "Remove the link; its keys stay as local keys",
        { params: linkParams },
        { 204: NO_CONTENT },
        { statuses: WRITE },
      ),
      async (request, reply) => {
        await engine.deleteLink(await linkOf(request, request.params.linkId));
        return noContent(reply);
      },
    ),
  });

  routePath(app, `${LINK_PATH}/run`, {
    post: documented(
      operation(
        "runSyncLink",
        "Sync now: pull, then push; answers when the run is over",
        { params: linkParams },
        { 200: ok("The link after the run", syncLink) },
        { statuses: WRITE },
      ),
      async (request) => engine.runNow(await linkOf(request, request.params.linkId)),
    ),
  });

  routePath(app, `${LINK_PATH}/keys`, {
    get: documented(
      operation(
        "listSyncKeys",
        "Linked keys with something to show: conflicts, pending or failed changes, keys the remote no longer lists",
        { params: linkParams },
        { 200: ok("The keys", syncKeyList) },
        { statuses: READ_ONE },
      ),
      async (request) => ({ keys: await engine.keys(await linkOf(request, request.params.linkId)) }),
    ),
  });

  routePath(app, `${LINK_PATH}/keys/:key/resolve`, {
    post: documented(
      operation(
        "resolveSyncConflict",
        "Settle one field's conflict: keep mine (pushed to the remote) or take theirs (written here); validFrom and validTo are settled together",
        { params: keyParams, body: resolveConflictRequest },
        { 200: ok("The key's sync state", syncKey) },
        {
          statuses: WRITE,
          conflict: "The key has no conflict on this field (any more); reload its state",
        },
      ),
      async (request) => {
        const caller = await requireBasic(request);
        const { linkId, key } = request.params;
        const link = await engine.linkFor(caller, idOf(linkId, "sync link"));
        const { field, take } = parseBody(resolveConflictRequest, request.body);
        return engine.resolve(link, key, field, take, auditOriginOf(request, caller));
      },
    ),
  });

  routePath(app, `${LINK_PATH}/local-only`, {
    get: documented(
      operation(
        "listSyncLocalOnlyKeys",
        "Keys of the linked account that the link does not carry (made before the link, or whose create was discarded): their count and a page of them in creation order",
        { params: linkParams, querystring: localOnlyQuerySchema },
        { 200: ok("The count and a page", localOnlyKeyPage) },
        { statuses: ["400", ...READ_ONE] },
      ),
      async (request) => {
        const link = await linkOf(request, request.params.linkId);
        return engine.localOnly(link, localOnlyPage(request.query));
      },
    ),
  });

  routePath(app, `${LINK_PATH}/local-only/push`, {
    post: documented(
      operation(
        "pushSyncLocalOnlyKeys",
        "Queue the create of local-only keys on the remote (the ones named, or all); a disabled key is created not yet valid (validFrom 9999-12-31) and disabled with its true window by the update that follows",
        { params: linkParams, body: pushLocalOnlyRequest },
        { 200: ok("How many were queued", pushLocalOnlyAnswer) },
        { statuses: WRITE },
      ),
      async (request) => {
        const link = await linkOf(request, request.params.linkId);
        return {
          queued: await engine.pushLocalOnly(link, parseBody(pushLocalOnlyRequest, request.body)),
        };
      },
    ),
  });

  routePath(app, `${LINK_PATH}/outbox`, {
    get: documented(
      operation(
        "listSyncOutbox",
        "Local changes waiting to go out, in order, and failed ones",
        { params: linkParams },
        { 200: ok("The outbox", syncOutbox) },
        { statuses: READ_ONE },
      ),
      async (request) => ({ entries: await engine.outbox(await linkOf(request, request.params.linkId)) }),
    ),
  });

  routePath(app, `${LINK_PATH}/outbox/:entryId`, {
    delete: documented(
      operation(
        "discardSyncOutboxEntry",
        "Discard a change the remote refused (the local key keeps its value)",
        { params: entryParams },
        { 204: NO_CONTENT },
        { statuses: WRITE, conflict: "The entry is still queued; only a failed entry can be discarded" },
      ),
      async (request, reply) => {
        const { linkId, entryId } = request.params;
        const link = await linkOf(request, linkId);
        await engine.discardEntry(link, idOf(entryId, "outbox entry"));
        return noContent(reply);
      },
    ),
  });

  routePath(app, `${LINK_PATH}/outbox/:entryId/retry`, {
    post: documented(
      operation(
        "retrySyncOutboxEntry",
        "Queue a refused change again",
        { params: entryParams },
        { 200: ok("The entry", syncOutboxEntry) },
        { statuses: WRITE },
      ),
      async (request) => {
        const { linkId, entryId } = request.params;
        const link = await linkOf(request, linkId);
        return engine.retryEntry(link, idOf(entryId, "outbox entry"));
      },
    ),
  });
}
