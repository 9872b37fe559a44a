import type { FastifySchemaCompiler } from "fastify";
import type { z } from "zod";
import type { ValidationErrors } from "../../../shared/apiErrors.ts";
import { validationErrorsOf } from "../domain/apiKeyRecords.ts";
import { type ApiError, badRequest, INVALID_BODY, INVALID_QUERY, notFound } from "../errors.ts";

/**
 * Fastify validates a route's params, query and body with the zod schemas the route declares (the
 * ones /openapi.json is generated from), and the handler gets the parsed values. A part that fails
 * is answered here, in the service's error shape: 400 with `validationErrors` naming each field.
 */

type Issues = readonly z.core.$ZodIssue[];

/** How `validationErrors` names a failed field: top-level (`allowedIPs`) or by its dotted path. */
export type FieldNames = (issues: Issues) => ValidationErrors;

/** The refusal of a request part that fails its schema. */
function refusalOf(httpPart: string | undefined, fieldNames: FieldNames, url: string) {
  switch (httpPart) {
    case "body":
      return (issues: Issues) => badRequest(INVALID_BODY, fieldNames(issues));
    case "querystring":
      return (issues: Issues) => badRequest(INVALID_QUERY, fieldNames(issues));
    // A route resolves what its path names before validation (a 404 naming the account, key or
    // application): a path its schema refuses still failing here names no route.
    default:
      return () => notFound(`no such route: ${url}`);
  }
}

/**
 * The validator compiler of a documented route. `optionalBody`: the route takes no body as `{}`
 * (Fastify hands an absent body to the validator as null; a required body is refused either way,
 * with the same text). Headers are not validated here: the one header a route declares,
 * Idempotency-Key, must be counted in the raw headers (Node joins repeats into one value), which a
 * validator does not see; the route reads it with idempotencyKeyOf.
 */
export function zodValidatorCompiler(
  options: { fieldNames?: FieldNames; optionalBody?: boolean } = {},
): FastifySchemaCompiler<unknown> {
  const fieldNames = options.fieldNames ?? validationErrorsOf;
  return ({ schema: declared, httpPart, url }) => {
    if (httpPart === "headers") return acceptHeaders;
    // Every documented route declares its parts in zod (routeSchemas.ts).
    const schema = declared as z.ZodType;
    const refuse: (issues: Issues) => ApiError = refusalOf(httpPart, fieldNames, url);
    const emptyBody = httpPart === "body" && options.optionalBody === true;
    return (data) => {
      const parsed = schema.safeParse(emptyBody && data == null ? {} : data);
      return parsed.success ? { value: parsed.data } : { error: refuse(parsed.error.issues) };
    };
  };
}

const acceptHeaders = () => true;
