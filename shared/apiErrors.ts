/** The one error body every response of the key service uses (the shape Infobip clients parse). */
import type { z } from "zod";
import type { errorBodySchema } from "./errorBody.ts";
import { MESSAGE_IDS, type MessageId } from "./messageIds.ts";

export { MESSAGE_IDS, type MessageId };

/** Per-field messages, keyed by the request field they concern. */
export type ValidationErrors = Record<string, string[]>;

/** The body's type comes from its schema (errorBody.ts); type-only, so zod stays out. */
export type ApiErrorBody = z.infer<ReturnType<typeof errorBodySchema>>;
export type ServiceException = ApiErrorBody["requestError"]["serviceException"];

export const STATUS_OF_MESSAGE_ID: Record<MessageId, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  GENERAL_ERROR: 500,
  /** The database file is damaged or its disk is full: the text says which and what to do. */
  SERVICE_UNAVAILABLE: 503,
};
