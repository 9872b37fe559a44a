import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { ValidationErrors } from "../../shared/apiErrors.ts";
import { DEFAULT_LOCAL_ONLY_PAGE, SYNC_LINKS_PATH } from "../../shared/sync.ts";
import { notFound } from "../service/errors.ts";
import { auditOriginOf } from "../service/http/auditOrigin.ts";
import type { BasicGuard } from "../service/http/basicAuthGuard.ts";
import { routePath } from "../service/http/methodRoutes.ts";
import { type ErrorStatus, errorResponse } from "../service/http/openApiErrors.ts";
import { type DeclaredResponse, documented, jsonContent, pathParam } from "../service/http/routeSchemas.ts";
import {
  BASIC_CHALLENGE,
  basicOnly,
  bodyErrors,
  commonErrors,
  serviceFailures,
} from "../service/http/routes/commonErrors.ts";
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

/** A link's or an outbox entry's id as the path names it: anything else names none (404). */
function idOf(text: string, what: string): number {
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw notFound(`no ${what} ${text}`);
  return id;
}

/**
 * How validationErrors names the local-only list's invalid parameters: one message each, an unknown
 * one "is not a known parameter" (as that route always answered).
 */
function localOnlyFieldNames(issues: readonly z.core.$ZodIssue[]): ValidationErrors {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys")
      for (const name of issue.keys) errors[name] = ["is not a known parameter"];
    else errors[String(issue.path[0])] ??= [issue.message];
  }
  return errors;
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
};

/**
 * The refusals of each kind of operation. Every method but GET has its body read (and refused
 * when it is too large, not JSON or broken) before the operation runs, even where it takes none.
 * Every operation also declares the service's own failures (serviceFailures).
 */
const LIST: ErrorStatus[] = ["401", "403", "429"];
const READ_ONE: ErrorStatus[] = ["401", "403", "404", "429"];
const WRITE: ErrorStatus[] = ["400", "401", "403", "404", "413", "415", "429"];

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
    ...serviceFailures,
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
  // What a sync route answers before its query and body: the credentials, then the link (and the
  // outbox entry's id) its path names.
  const linkOf = async (request: FastifyRequest) => {
    const caller = await requireBasic(request);
    return engine.linkFor(caller, idOf(pathParam(request, "linkId"), "sync link"));
  };
  const entryOf = async (request: FastifyRequest) => {
    const link = await linkOf(request);
    return { link, entryId: idOf(pathParam(request, "entryId"), "outbox entry") };
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
      {
        before: requireBasic,
        handler: async (_request, _reply, caller) => ({ links: await engine.links(caller) }),
      },
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
      {
        before: requireBasic,
        handler: async (request, _reply, caller) => {
          const account = await keys.resolveAccount(caller, request.body.accountKey);
          return engine.createLink(account, request.body);
        },
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
      { before: linkOf, handler: (_request, _reply, link) => engine.toDto(link) },
    ),
    put: documented(
      operation(
        "updateSyncLink",
        "Change the remote's credentials (resumes a link paused by a 401), the interval, or pause/resume",
        { params: linkParams, body: updateSyncLinkRequest },
        { 200: ok("The link", syncLink) },
        { statuses: WRITE, forbidden: REMOTE_NOT_ALLOWED },
      ),
      { before: linkOf, handler: (request, _reply, link) => engine.updateLink(link, request.body) },
    ),
    delete: documented(
      operation(
        "deleteSyncLink",
        "Remove the link; its keys stay as local keys",
        { params: linkParams },
        { 204: NO_CONTENT },
        { statuses: WRITE },
      ),
      {
        before: linkOf,
        handler: async (_request, reply, link) => {
          await engine.deleteLink(link);
          return noContent(reply);
        },
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
      { before: linkOf, handler: (_request, _reply, link) => engine.runNow(link) },
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
      { before: linkOf, handler: async (_request, _reply, link) => ({ keys: await engine.keys(link) }) },
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
      {
        before: async (request: FastifyRequest) => {
          const caller = await requireBasic(request);
          return {
            caller,
            link: await engine.linkFor(caller, idOf(pathParam(request, "linkId"), "sync link")),
          };
        },
        handler: (request, _reply, { caller, link }) => {
          const { field, take } = request.body;
          return engine.resolve(link, request.params.key, field, take, auditOriginOf(request, caller));
        },
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
      {
        before: linkOf,
        handler: (request, _reply, link) =>
          engine.localOnly(link, {
            limit: request.query.limit ?? DEFAULT_LOCAL_ONLY_PAGE,
            after: request.query.cursor ?? 0,
          }),
        fieldNames: localOnlyFieldNames,
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
      {
        before: linkOf,
        handler: async (request, _reply, link) => ({
          queued: await engine.pushLocalOnly(link, request.body),
        }),
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
      { before: linkOf, handler: async (_request, _reply, link) => ({ entries: await engine.outbox(link) }) },
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
      {
        before: entryOf,
        handler: async (_request, reply, { link, entryId }) => {
          await engine.discardEntry(link, entryId);
          return noContent(reply);
        },
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
      { before: entryOf, handler: (_request, _reply, { link, entryId }) => engine.retryEntry(link, entryId) },
    ),
  });
}
