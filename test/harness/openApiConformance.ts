import assert from "node:assert/strict";
import type { IncomingHttpHeaders } from "node:http";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { compileTemplates, matchTemplate } from "./openApiPaths.ts";

/**
 * Checks a real answer of the service against what its own /openapi.json declares for it: the
 * request is matched to its documented path and operation, then the status must be documented
 * for that operation (or by a `default`), the documented headers present, the Content-Type one
 * of the documented media types, and a JSON body valid against the documented schema (whose
 * closed objects make any undocumented field a failure). A status or media type that documents
 * no content must come without a body, as must every answer to HEAD.
 *
 * Requests no operation takes are answered by the document's root extensions:
 * `x-unknown-path` (a path matching none of `paths`) and `x-method-not-allowed` (a method a
 * documented path has no operation for); OpenAPI itself has no place for them.
 */

export interface MediaTypeObject {
  schema?: object;
}
export interface ResponseObject {
  description?: string;
  headers?: Record<string, { required?: boolean; schema?: object }>;
  content?: Record<string, MediaTypeObject>;
}
export interface OperationObject {
  operationId?: string;
  responses: Record<string, ResponseObject>;
}
export interface UnroutedAnswers {
  description?: string;
  responses: Record<string, ResponseObject>;
}
export type OpenApiDocument = {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, object> };
  "x-unknown-path"?: UnroutedAnswers;
  "x-method-not-allowed"?: UnroutedAnswers;
  "x-refused-requests"?: UnroutedAnswers;
};

/** One request and the answer it got, as the checker needs them. */
export interface Exchange {
  method: string;
  /** The path as sent, query included. */
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as received (empty when there was none). */
  text: string;
}

/** Where a request landed in the document: which operation (or root extension) and which response. */
export interface Resolution {
  /** `GET /settings/1/accounts/{accountKey}/api-keys`, or `x-unknown-path` / `x-method-not-allowed`. */
  operation: string;
  /** The key the status matched under `responses` ("404", "4XX", "default"); undefined when none. */
  responseKey: string | undefined;
}

export const OPERATION_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const DOC_ID = "urn:keydesk:openapi";

/** A JSON pointer from path segments (`~` and `/` escaped, then URI-encoded). */
export const pointerOf = (segments: string[]) =>
  segments
    .map((segment) => encodeURIComponent(segment.replaceAll("~", "~0").replaceAll("/", "~1")))
    .join("/");

const mediaTypeOf = (contentType: string | string[] | undefined) =>
  String(contentType ?? "")
    .split(";")[0]
    ?.trim()
    .toLowerCase() ?? "";
const isJson = (mediaType: string) => mediaType === "application/json" || mediaType.endsWith("+json");

/** The documented media type a received one answers to: exact, `type/*` or `*\/*`. */
function documentedMediaType(content: Record<string, MediaTypeObject>, received: string): string | undefined {
  const keys = Object.keys(content);
  const exact = keys.find((key) => key.toLowerCase() === received);
  if (exact) return exact;
  const [type] = received.split("/");
  return keys.find((key) => key === `${type}/*`) ?? keys.find((key) => key === "*/*");
}

/** The response a status is documented by: exact, then `4XX`-style ranges, then `default`. */
function responseKeyOf(responses: Record<string, unknown>, status: number): string | undefined {
  return [String(status), `${String(status)[0]}XX`, "default"].find((key) => key in responses);
}

export function openApiConformance(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...structuredClone(doc), $id: DOC_ID });
  const templates = compileTemplates(Object.keys(doc.paths));
  const compiled = new Map<string, ValidateFunction>();

  /** A validator of the document's schema at `#/<pointer>`, compiled once. */
  function validatorAt(pointer: string): ValidateFunction {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOC_ID}#/${pointer}` });
      compiled.set(pointer, validate);
    }
    return validate;
  }

  /** The problems of one answer against one documented response (pointer segments locate it). */
  function responseProblems(
    where: string[],
    response: ResponseObject,
    exchange: Exchange,
    head: boolean,
  ): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = exchange.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`the documented header ${name} is missing`);
        continue;
      }
      if (!header.schema) continue;
      const validate = validatorAt(pointerOf([...where, "headers", name, "schema"]));
      if (!validate(String(value)))
        problems.push(`header ${name}: ${value} does not match ${JSON.stringify(validate.errors)}`);
    }
    const content = response.content ?? {};
    const documentsBody = Object.keys(content).length > 0;
    if (!documentsBody || head) {
      if (exchange.text !== "") problems.push(`no body is documented, but one came: ${exchange.text}`);
      // A HEAD answer still names the media type its GET answer would have.
      if (!documentsBody) return problems;
    }
    const received = mediaTypeOf(exchange.headers["content-type"]);
    const mediaKey = documentedMediaType(content, received);
    if (!mediaKey) {
      problems.push(
        `Content-Type ${received || "(none)"} is not documented (${Object.keys(content).join(", ")})`,
      );
      return problems;
    }
    if (head || !content[mediaKey]?.schema) return problems;
    if (!isJson(received)) return problems;
    let body: unknown;
    try {
      body = JSON.parse(exchange.text);
    } catch {
      problems.push(`the body is not JSON: ${exchange.text.slice(0, 200)}`);
      return problems;
    }
    const validate = validatorAt(pointerOf([...where, "content", mediaKey, "schema"]));
    if (!validate(body)) problems.push(`body: ${JSON.stringify(validate.errors)}`);
    return problems;
  }

  /** The answers of a root extension (unknown path, method not allowed). */
  function unroutedProblems(
    name: "x-unknown-path" | "x-method-not-allowed" | "x-refused-requests",
    exchange: Exchange,
  ): [Resolution, string[]] {
    const documented = doc[name];
    const responseKey = documented && responseKeyOf(documented.responses, exchange.status);
    const resolution = { operation: name, responseKey };
    if (!documented) return [resolution, [`the document has no ${name}`]];
    if (!responseKey) return [resolution, [`${name} does not document status ${exchange.status}`]];
    const response = documented.responses[responseKey] as ResponseObject;
    return [
      resolution,
      responseProblems([name, "responses", responseKey], response, exchange, exchange.method === "HEAD"),
    ];
  }

  /** Where the exchange lands in the document and what does not match there. */
  function inspect(exchange: Exchange, template?: string): [Resolution, string[]] {
    const path = template ?? matchTemplate(templates, exchange.path);
    if (path === undefined) return unroutedProblems("x-unknown-path", exchange);
    const method = exchange.method.toLowerCase();
    const item = doc.paths[path] as Record<string, unknown>;
    // HEAD is served wherever GET is: the GET operation's answer, without its body.
    const head = method === "head" && !item.head && Boolean(item.get);
    const operationMethod = head ? "get" : method;
    const operation = item[operationMethod] as OperationObject | undefined;
    if (!operation || !OPERATION_METHODS.includes(operationMethod))
      return unroutedProblems("x-method-not-allowed", exchange);
    const responseKey = responseKeyOf(operation.responses, exchange.status);
    const resolution = { operation: `${operationMethod.toUpperCase()} ${path}`, responseKey };
    if (!responseKey) return [resolution, [`status ${exchange.status} is not documented`]];
    const where = ["paths", path, operationMethod, "responses", responseKey];
    const response = operation.responses[responseKey] as ResponseObject;
    return [resolution, responseProblems(where, response, exchange, head)];
  }

  const describe = (exchange: Exchange, resolution: Resolution, problems: string[]) =>
    `${exchange.method} ${exchange.path} → ${exchange.status} does not conform to /openapi.json ` +
    `(${resolution.operation}):\n  ${problems.join("\n  ")}\n  answer: ${exchange.text.slice(0, 500)}`;

  return {
    /** A validator of the document's schema at `#/<pointer>`, e.g. `components/schemas/ApiKey`. */
    schema: validatorAt,
    /** The documented path a concrete path is answered under (undefined: none). */
    templateOf: (path: string) => matchTemplate(templates, path),
    /** Where the exchange lands and its problems (none: it conforms). */
    inspect,
    /** Fails with every problem when the answer does not conform; returns where it landed. */
    assertConforms(exchange: Exchange): Resolution {
      const [resolution, problems] = inspect(exchange);
      assert.ok(problems.length === 0, describe(exchange, resolution, problems));
      return resolution;
    },
    /** Fails unless the answer is one `x-refused-requests` documents (refusals before routing). */
    assertRefusal(exchange: Exchange): void {
      const [resolution, problems] = unroutedProblems("x-refused-requests", exchange);
      assert.ok(problems.length === 0, describe(exchange, resolution, problems));
    },
    /**
     * Asserts one server-sent event of the stream at `path` (GET, 200, `text/event-stream`) is
     * documented by the media type's `x-events` (event name → schema of its JSON data) and matches.
     */
    assertEvent(path: string, event: string, data: string): void {
      const template = matchTemplate(templates, path);
      const where = ["paths", template ?? path, "get", "responses", "200", "content", "text/event-stream"];
      const mediaType = (doc.paths[template ?? ""]?.get as OperationObject | undefined)?.responses["200"]
        ?.content?.["text/event-stream"] as
        | (MediaTypeObject & { "x-events"?: Record<string, object> })
        | undefined;
      assert.ok(mediaType?.["x-events"]?.[event], `GET ${path}: event ${event} is not documented`);
      const validate = validatorAt(pointerOf([...where, "x-events", event]));
      assert.ok(
        validate(JSON.parse(data)),
        `GET ${path}: event ${event} does not conform: ${JSON.stringify(validate.errors)} for ${data}`,
      );
    },
    /**
     * Asserts the answer conforms to the operation `method path` (a documented template),
     * for tests that name the operation they mean rather than a concrete request path.
     */
    assertResponse(method: string, path: string, res: Omit<Exchange, "method" | "path">): void {
      assert.ok(doc.paths[path]?.[method.toLowerCase()], `${method} ${path} is not documented`);
      const exchange = { ...res, method, path };
      const [resolution, problems] = inspect(exchange, path);
      assert.ok(problems.length === 0, describe(exchange, resolution, problems));
    },
  };
}

export type OpenApiConformance = ReturnType<typeof openApiConformance>;
