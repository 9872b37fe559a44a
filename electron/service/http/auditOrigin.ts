import type { FastifyRequest } from "fastify";
import { ACTION_HEADER, CLIENT_HEADER } from "../../../shared/httpHeaders.ts";
import type { Account } from "../domain/accounts.ts";
import { type AuditOrigin, channelOf, reasonOf } from "../domain/auditEntries.ts";

/**
 * Who a request's change is recorded as: the authenticated account, the channel and reason the
 * client declares (`Keydesk-Client`, `Keydesk-Action`: its own word, not verified), and the
 * client address as the service sees it (the socket's peer, or a trusted proxy's forward).
 */
export function auditOriginOf(request: FastifyRequest, caller: Account): AuditOrigin {
  return {
    actor: caller.username,
    channel: channelOf(request.headers[CLIENT_HEADER]),
    address: request.ip ?? null,
    reason: reasonOf(request.headers[ACTION_HEADER]),
  };
}
