import type { FastifyInstance } from "fastify";
import { auditAnswerSchemas } from "../../../../shared/auditAnswers.ts";
import { SERVICE_ROUTES } from "../../../../shared/servicePaths.ts";
import { type AuditHistory, auditQuerySchema } from "../../audit/auditHistory.ts";
import type { BasicGuard } from "../basicAuthGuard.ts";
import { routePath } from "../methodRoutes.ts";
import { errorResponse } from "../openApiErrors.ts";
import { component, documented, jsonContent } from "../routeSchemas.ts";
import { BASIC_CHALLENGE, basicOnly, commonErrors, serviceFailures } from "./commonErrors.ts";

const LOCAL_AUDIT_PATH = SERVICE_ROUTES.localAudit;

const answers = auditAnswerSchemas(true);
// A component of its own, which AuditPage's entries name.
component("AuditEntry", answers.auditEntry);
const auditPage = component("AuditPage", answers.auditPage);

/** The audit history (a Keydesk extension): Basic credentials, own account and sub-accounts. */
export function registerLocalAuditRoutes(
  app: FastifyInstance,
  history: AuditHistory,
  requireBasic: BasicGuard,
): void {
  routePath(app, LOCAL_AUDIT_PATH, {
    get: documented(
      {
        tags: ["Audit"],
        operationId: "listAuditEntries",
        summary:
          "The audit history of the caller's account and the accounts it manages, newest first, one page at a time (a Keydesk extension)",
        description:
          "Every change of a key (create, update, enable, disable, rotation, sync) and of an account is recorded in the transaction of the change itself. Entries older than the service's retention (default 365 days) are deleted. A cursor is a position: entries recorded while a client pages never shift a page.",
        security: basicOnly,
        querystring: auditQuerySchema,
        response: {
          200: { description: "One page of entries", content: jsonContent(auditPage) },
          400: errorResponse(
            "400",
            "A filter is invalid (validationErrors names it), or the cursor is not one this service gave",
          ),
          401: errorResponse("401", "Missing or wrong Basic credentials", BASIC_CHALLENGE),
          403: errorResponse(
            "403",
            "An API key (App scheme) was used; the audit takes Basic credentials only",
          ),
          404: errorResponse("404", "The account filter names an account the caller does not manage"),
          429: commonErrors["429"],
          ...serviceFailures,
        },
      },
      { before: requireBasic, handler: (request, _reply, caller) => history.page(caller, request.query) },
    ),
  });
}
