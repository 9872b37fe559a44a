import { z } from "zod";
import {
  createSyncLinkRequestSchema,
  DEFAULT_LOCAL_ONLY_PAGE,
  MAX_LOCAL_ONLY_PAGE,
  pushLocalOnlyRequestSchema,
  resolveConflictRequestSchema,
  updateSyncLinkRequestSchema,
} from "../../shared/sync.ts";
import { syncAnswerSchemas } from "../../shared/syncAnswers.ts";
import { component } from "../service/http/routeSchemas.ts";

/** The requests and answers of the sync routes (syncRoutes.ts), as the document's components. */

export const createSyncLinkRequest = component("CreateSyncLinkRequest", createSyncLinkRequestSchema);
export const updateSyncLinkRequest = component("UpdateSyncLinkRequest", updateSyncLinkRequestSchema);
export const resolveConflictRequest = component("ResolveConflictRequest", resolveConflictRequestSchema);
export const pushLocalOnlyRequest = component("PushLocalOnlyRequest", pushLocalOnlyRequestSchema);

const answers = syncAnswerSchemas(true);
export const syncLink = component("SyncLink", answers.syncLink);
export const syncLinkList = component("SyncLinkList", answers.syncLinkList);
export const syncKey = component("SyncKey", answers.syncKey);
export const syncKeyList = component("SyncKeyList", answers.syncKeyList);
export const syncOutboxEntry = component("SyncOutboxEntry", answers.syncOutboxEntry);
export const syncOutbox = component("SyncOutbox", answers.syncOutbox);
export const localOnlyKeyPage = component("LocalOnlyKeyPage", answers.localOnlyKeyPage);
export const pushLocalOnlyAnswer = component("PushLocalOnlyAnswer", answers.pushLocalOnlyAnswer);

const LIMIT = `must be a whole number from 1 to ${MAX_LOCAL_ONLY_PAGE}`;
const CURSOR = "must be a nextCursor of an earlier page";

/** The query of the local-only list: `limit` (1–1,000, 100 by default) and `cursor` (a nextCursor). */
export const localOnlyQuerySchema = z.strictObject({
  limit: z
    .string({ error: LIMIT })
    .regex(/^\d{1,5}$/, LIMIT)
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= MAX_LOCAL_ONLY_PAGE, LIMIT)
    .optional()
    .meta({
      description: `Keys per page, 1 to ${MAX_LOCAL_ONLY_PAGE}`,
      default: String(DEFAULT_LOCAL_ONLY_PAGE),
    }),
  cursor: z
    .string({ error: CURSOR })
    .regex(/^[1-9]\d{0,14}$/, CURSOR)
    .transform(Number)
    .optional()
    .meta({ description: "The nextCursor of the page before" }),
});
