import assert from "node:assert/strict";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { ApiResponse } from "./keyServiceProcess.ts";

/** Checks real answers of the service against what its /openapi.json declares for them. */

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };
export type OpenApiDocument = { paths: Record<string, Record<string, unknown>> };

const DOC_ID = "urn:keydesk:openapi";

/** A JSON pointer from path segments (`~` and `/` escaped, then URI-encoded). */
const pointerOf = (segments: string[]) =>
  segments
    .map((segment) => encodeURIComponent(segment.replaceAll("~", "~0").replaceAll("/", "~1")))
    .join("/");

export function openApiConformance(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...structuredClone(doc), $id: DOC_ID });
  return {
    /** A validator of the document's schema at `#/<pointer>`, e.g. `components/schemas/ApiKey`. */
    schema(pointer: string): ValidateFunction {
      return ajv.compile({ $ref: `${DOC_ID}#/${pointer}` });
    },
    /** Asserts the answer matches the schema the document declares for its operation and status. */
    assertResponse(method: string, path: string, res: ApiResponse): void {
      const operation = doc.paths[path]?.[method.toLowerCase()] as Operation | undefined;
      assert.ok(operation, `${method} ${path} is not documented`);
      const response = operation.responses[String(res.status)];
      assert.ok(response, `${method} ${path} does not document status ${res.status} (${res.text})`);
      assert.ok(
        response.content?.["application/json"],
        `${method} ${path} ${res.status} documents no JSON body`,
      );
      const pointer = pointerOf([
        "paths",
        path,
        method.toLowerCase(),
        "responses",
        String(res.status),
        "content",
        "application/json",
        "schema",
      ]);
      const validate = ajv.compile({ $ref: `${DOC_ID}#/${pointer}` });
      assert.ok(
        validate(res.json),
        `${method} ${path} ${res.status}: ${JSON.stringify(validate.errors)} for ${res.text}`,
      );
    },
  };
}
