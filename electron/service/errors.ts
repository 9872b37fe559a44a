import type { ApiErrorBody, MessageId, ServiceException, ValidationErrors } from "../../shared/apiErrors.ts";
import { STATUS_OF_MESSAGE_ID } from "../../shared/apiErrors.ts";

/**
 * An error the service answers with: status, messageId and a text that says how to fix it.
 * It is an answer, not a bug, so it carries no stack trace: capturing one through Fastify's
 * call stack was a quarter of the cost of every refused request.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly messageId: MessageId;
  readonly validationErrors: ValidationErrors | undefined;
  readonly headers: Record<string, string>;

  constructor(messageId: MessageId, text: string, validationErrors?: ValidationErrors, headers = {}) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(text);
    Error.stackTraceLimit = stackTraceLimit;
    this.messageId = messageId;
    this.status = STATUS_OF_MESSAGE_ID[messageId];
    this.validationErrors = validationErrors;
    this.headers = headers;
  }

  #json: string | undefined;

  toServiceException(): ServiceException {
    const exception: ServiceException = { messageId: this.messageId, text: this.message };
    if (this.validationErrors) exception.validationErrors = this.validationErrors;
    return exception;
  }

  toBody(): ApiErrorBody {
    return { requestError: { serviceException: this.toServiceException() } };
  }

  /** The response body, serialized once: an error kept for reuse (a refusal) is sent many times. */
  toJson(): string {
    this.#json ??= JSON.stringify(this.toBody());
    return this.#json;
  }
}

/** The text of every 400 for a query with invalid parameters (validationErrors names them). */
export const INVALID_QUERY = "the query has invalid parameters; see validationErrors";
/** The text of every 400 for a body with invalid fields (validationErrors names them). */
export const INVALID_BODY = "the request has invalid fields; see validationErrors";

export const badRequest = (text: string, validationErrors?: ValidationErrors) =>
  new ApiError("BAD_REQUEST", text, validationErrors);
/**
 * A 404 of a route that exists: `field` names the request's part (a path parameter, a filter) that
 * names nothing, so a client tells it from the 404 of a route the service does not have, which
 * names no field.
 */
export const notFound = (text: string, field?: string) =>
  new ApiError("NOT_FOUND", text, field === undefined ? undefined : { [field]: [text] });
export const forbidden = (text: string) => new ApiError("FORBIDDEN", text);
export const conflict = (text: string) => new ApiError("CONFLICT", text);
