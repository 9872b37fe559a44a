import type { FastifyReply } from "fastify";
import type { MessageId } from "../../../shared/apiErrors.ts";
import { ApiError } from "../errors.ts";

const MESSAGE_ID_OF_STATUS: Record<number, MessageId> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "TOO_MANY_REQUESTS",
};

/** Texts for the framework's own errors: say what is wrong and how to fix it, never internals. */
const FRAMEWORK_TEXTS: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "send the request body as JSON with Content-Type: application/json",
  FST_ERR_CTP_BODY_TOO_LARGE: "the request body is larger than 64 KiB",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "the Content-Length header does not match the body",
  FST_ERR_BAD_URL: "the request path is not a valid URL path",
  FST_ERR_CTP_INVALID_TYPE: "the Content-Type header is not valid",
};

interface FrameworkError {
  code?: string;
  statusCode?: number;
}

/** Maps anything thrown while handling a request to the ApiError it is answered with. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const { code, statusCode } = (error ?? {}) as FrameworkError;
  // A path parameter too long for the router cannot name any account, key or version there is.
  if (code === "FST_ERR_MAX_PARAM_LENGTH") {
    return new ApiError("NOT_FOUND", "no such route: a path segment is longer than any valid identifier");
  }
  const messageId = statusCode === undefined ? undefined : MESSAGE_ID_OF_STATUS[statusCode];
  if (messageId) {
    return new ApiError(
      messageId,
      (code && FRAMEWORK_TEXTS[code]) ?? `the request was refused (${statusCode})`,
    );
  }
  return new ApiError("GENERAL_ERROR", "the service failed to handle this request; its log has the details");
}

export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type("application/json; charset=utf-8")
    .send(error.toJson());
}
