import { z } from "zod";
import { MESSAGE_IDS, type MessageId, STATUS_OF_MESSAGE_ID } from "../../../shared/apiErrors.ts";
import { errorBodySchema } from "../../../shared/errorBody.ts";
import { SERVICE_PATHS } from "./providerPathGate.ts";

/**
 * The error answers of the OpenAPI document: the one error body (closed at every level, so a
 * client can rely on nothing else being there), one schema per status that pins its messageId,
 * the headers some refusals always carry, and the answers to requests no operation takes.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ "application/json": { schema } });

const MESSAGE_ID_OF_STATUS = Object.fromEntries(
  MESSAGE_IDS.map((messageId) => [String(STATUS_OF_MESSAGE_ID[messageId]), messageId]),
) as Record<string, MessageId>;

export type ErrorStatus =
  | "400"
  | "401"
  | "403"
  | "404"
  | "405"
  | "409"
  | "413"
  | "415"
  | "429"
  | "500"
  | "503";

/** `NOT_FOUND` → `NotFoundError`, `GENERAL_ERROR` → `GeneralError`. */
const schemaNameOf = (messageId: MessageId) => {
  const name = messageId
    .toLowerCase()
    .split("_")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
  return name.endsWith("Error") ? name : `${name}Error`;
};

/** The error body (shared/errorBody.ts) as the document's JSON Schema, closed at every level. */
function apiErrorJsonSchema(): object {
  const { $schema: _, ...schema } = z.toJSONSchema(errorBodySchema(true), {
    target: "draft-2020-12",
    // validationErrors names no fields of its own: only what any field name may hold.
    override: ({ jsonSchema }) => {
      if (jsonSchema.properties && Object.keys(jsonSchema.properties).length === 0)
        delete jsonSchema.properties;
    },
  });
  return schema;
}

export const errorSchemas = {
  ApiError: apiErrorJsonSchema(),
  ...Object.fromEntries(
    MESSAGE_IDS.map((messageId) => [
      schemaNameOf(messageId),
      {
        description: `The error body with messageId ${messageId}`,
        allOf: [
          ref("ApiError"),
          {
            properties: {
              requestError: {
                properties: { serviceException: { properties: { messageId: { const: messageId } } } },
              },
            },
          },
        ],
      },
    ]),
  ),
};

const digits = { type: "string", pattern: "^[0-9]+$" };

/** Headers a status always comes with, wherever it is answered. */
const HEADERS_OF_STATUS: Partial<Record<ErrorStatus, object>> = {
  "405": {
    Allow: {
      required: true,
      description: "The methods the path takes",
      schema: { type: "string", pattern: "^[A-Z]+(, [A-Z]+)*$" },
    },
  },
  "429": {
    "Retry-After": { required: true, description: "Seconds to wait before trying again", schema: digits },
  },
};

/** An error answer of `status`: its description, the headers it always has, and its body's schema. */
export function errorResponse(status: ErrorStatus, description: string, headers: object = {}) {
  const messageId = MESSAGE_ID_OF_STATUS[status] as MessageId;
  const allHeaders = { ...HEADERS_OF_STATUS[status], ...headers };
  return {
    description,
    ...(Object.keys(allHeaders).length > 0 && { headers: allHeaders }),
    content: json(ref(schemaNameOf(messageId))),
  };
}

/** The 429 of every authenticated operation: the failed sign-in throttle. */
export const SIGN_IN_LIMITED =
  "Too many failed sign-in attempts from this address, or too many sign-ins being checked at once; see Retry-After";

/** What a provider path no route takes answers before its 404 or 405 (http/providerPathGate.ts). */
const providerPathRefusals = {
  "401": errorResponse(
    "401",
    "A provider path: missing credentials, unknown API key, wrong Basic credentials, an unknown, ended or expired IBSSO token, or OAuth (not simulated)",
  ),
  "403": errorResponse(
    "403",
    "A provider path: the API key may not make this call (disabled, outside its validity window or allowedIPs, or a TFA key)",
  ),
  "429": errorResponse("429", `A provider path: ${SIGN_IN_LIMITED}`),
};

/**
 * Answers to requests that no operation takes, at the document's root (OpenAPI has no place for
 * them): a path that matches none of `paths`, and a method a documented path has no operation for.
 */
export const unroutedAnswers = {
  "x-unknown-path": {
    description:
      "Any request whose path matches none of `paths` (one trailing slash is ignored), or cannot be percent-decoded. A path outside the service's own (" +
      SERVICE_PATHS.map((path) => `\`${path}\``).join(", ") +
      ") is the provider's: its credentials are checked first, as on a route an API key with the ALL permission may call (Basic credentials, an IBSSO session's token, or `App <publicApiKey>` with its state, validity window, allowedIPs and permissions), so a refused key gets its 401 or 403 on every path, and only an authorized call learns that the path is not simulated. Such a call counts as the key's use.",
    responses: {
      "400": errorResponse(
        "400",
        "The path is not valid percent-encoding (after the credentials passed, on a provider path)",
      ),
      ...providerPathRefusals,
      "404": errorResponse("404", "No such route"),
    },
  },
  "x-method-not-allowed": {
    description:
      "A request to a documented path with a method the path has no operation for (HEAD is answered wherever GET is), whatever its body. On a provider path (see x-unknown-path) the credentials are checked first.",
    responses: {
      ...providerPathRefusals,
      "405": errorResponse("405", "Method not allowed on this path; Allow names the methods it takes"),
    },
  },
};

/** An answer that ends its connection, as every refusal of the HTTP layer does. */
const refusal = (description: string) => ({
  description,
  headers: {
    Connection: {
      required: true,
      description: "close: the connection ends with this answer",
      schema: { type: "string", const: "close" },
    },
  },
  content: json(ref(schemaNameOf("BAD_REQUEST"))),
});

/**
 * Answers the HTTP layer gives before any route sees the request, at the document's root like
 * the ones above: whatever the path and method, in the one error shape (messageId BAD_REQUEST).
 */
export const refusedRequests = {
  "x-refused-requests": {
    description:
      "Requests refused before routing, whatever their path and method; each answer closes the connection",
    responses: {
      "400": refusal(
        "Not valid HTTP/1.1: a malformed request line (raw spaces, control or non-ASCII bytes in the path), an HTTP/1.1 request without Host, an invalid header, both Transfer-Encoding and Content-Length, an invalid or repeated Content-Length, a Transfer-Encoding other than chunked, a malformed chunk; the text names which",
      ),
      "408": refusal(
        "The whole request (head and body) did not arrive within the request timeout (`serve --request-timeout`, 30 s by default)",
      ),
      "431": refusal("The request head is larger than 16 KiB"),
    },
  },
};
