import type { FastifyInstance } from "fastify";
import type { AuditHistory } from "../../audit/auditHistory.ts";
import type { BasicGuard } from "../basicAuthGuard.ts";
import { routePath } from "../methodRoutes.ts";

export const LOCAL_AUDIT_PATH = "/local/1/audit";

/** The audit history (a Keydesk extension): Basic credentials, own account and sub-accounts. */
export function registerLocalAuditRoutes(
  app: FastifyInstance,
  history: AuditHistory,
  requireBasic: BasicGuard,
): void {
  routePath(app, LOCAL_AUDIT_PATH, {
    get: async (request) => history.page(await requireBasic(request), request.query),
  });
}
