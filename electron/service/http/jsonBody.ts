import type { FastifyInstance } from "fastify";
import secureJson from "secure-json-parse";
import { badRequest } from "../errors.ts";

export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * JSON is the only body the service takes (anything else is 415). An empty body is allowed
 * and reaches the handler as undefined: clients send `Content-Type: application/json` on
 * body-less POSTs such as `/2fa/2/api-key`. Prototype-poisoning keys are refused outright.
 */
export function acceptJsonBodiesOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/json",
    { parseAs: "string", bodyLimit: BODY_LIMIT_BYTES },
    (_req, text, done) => {
      const body = text as string;
      if (body.trim() === "") {
        done(null, undefined);
        return;
      }
      try {
        done(null, secureJson.parse(body, undefined, { protoAction: "error", constructorAction: "error" }));
      } catch (error) {
        const reason =
          error instanceof SyntaxError ? error.message : "it uses a forbidden key (__proto__ or constructor)";
        done(badRequest(`the request body is not valid JSON: ${reason}`), undefined);
      }
    },
  );
}
