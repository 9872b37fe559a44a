import { z } from "zod";
import { ACCOUNT_KEY_SEGMENT_PATTERN, KEY_ID_PATTERN } from "../../../shared/apiKeys.ts";
import type { AuditPageDto } from "../../../shared/audit.ts";
import { DATETIME_FORMAT_HINT, parseApiDateTime } from "../../../shared/datetime.ts";
import type { Account } from "../domain/accounts.ts";
import {
  CURSOR_REFUSED,
  type CursorSeal,
  cursorBinding,
  decodeListCursor,
  encodeListCursor,
} from "../domain/listCursor.ts";
import { badRequest, INVALID_QUERY } from "../errors.ts";
import type { KeyService } from "../keyService.ts";
import type { AuditReads, Store } from "../store/store.ts";

const MAX_AUDIT_PAGE = 1_000;
const DEFAULT_AUDIT_PAGE = 100;

const once = { error: "must be given once" };
const dateTime = (description: string) =>
  z
    .string(once)
    .refine((text) => parseApiDateTime(text) !== null, `must be a date and time: ${DATETIME_FORMAT_HINT}`)
    .transform((text) => parseApiDateTime(text) as number)
    .optional()
    .meta({
      description: `${description}; the formats validFrom accepts, e.g. 2030-06-01T00:00:00.000+0000 or 2030-06-01T00:00:00Z`,
    });

/** The query of `GET /local/1/audit`, as its route declares it (validated by Fastify, documented). */
export const auditQuerySchema = z.strictObject({
  key: z
    .string(once)
    .regex(KEY_ID_PATTERN, "must be a key's `key` (32 uppercase hex digits)")
    .optional()
    .meta({ description: "Entries of this key" }),
  actor: z
    .string(once)
    .min(1, "must not be empty")
    .max(255, "must be at most 255 characters")
    .optional()
    .meta({ description: "Entries made by this username" }),
  account: z.string(once).optional().meta({
    description: "Entries of this one account: `_` (the caller's own) or a sub-account's accountKey",
    pattern: ACCOUNT_KEY_SEGMENT_PATTERN.source,
  }),
  from: dateTime("Entries at or after this time"),
  to: dateTime("Entries before this time (after from)"),
  limit: z
    .string(once)
    .regex(/^\d{1,6}$/, `must be a whole number from 1 to ${MAX_AUDIT_PAGE}`)
    .transform(Number)
    .refine(
      (limit) => limit >= 1 && limit <= MAX_AUDIT_PAGE,
      `must be a whole number from 1 to ${MAX_AUDIT_PAGE}`,
    )
    .optional()
    .meta({ description: `Entries per page, 1 to ${MAX_AUDIT_PAGE}; ${DEFAULT_AUDIT_PAGE} when left out` }),
  cursor: z.string(once).optional().meta({
    description:
      "The nextCursor of the page before, sent with the same credentials and the same filters (key, actor, account, from, to); opaque. Any other cursor is a 400 naming cursor",
  }),
});

/**
 * `GET /local/1/audit`: the audit history of the caller's account and the accounts it manages,
 * newest first, in pages. A cursor is a position (the last entry's row id): entries recorded
 * while a client pages are newer than every page and never shift one. It is bound to the caller
 * and the filters it came with (domain/listCursor.ts).
 */
export class AuditHistory {
  readonly #audit: AuditReads;
  readonly #cursorSeal: CursorSeal;
  readonly #keys: KeyService;

  constructor(store: Pick<Store, "audit" | "apiKeys">, keys: KeyService) {
    this.#audit = store.audit;
    this.#cursorSeal = store.apiKeys;
    this.#keys = keys;
  }

  /** The page a query (validated by the route: auditQuerySchema) asks for. */
  async page(caller: Account, query: z.output<typeof auditQuerySchema>): Promise<AuditPageDto> {
    const { key, actor, account, from, to, limit, cursor } = query;
    if (from !== undefined && to !== undefined && to <= from) {
      throw badRequest(INVALID_QUERY, { to: ["must be after from"] });
    }
    const accountId =
      account === undefined ? undefined : (await this.#keys.resolveAccount(caller, account, "account")).id;
    const binding = cursorBinding("audit", caller.id, { key, actor, account: accountId, from, to });
    let before: number | undefined;
    if (cursor !== undefined) {
      const position = decodeListCursor(cursor, binding, this.#cursorSeal);
      if (position === null) throw badRequest(INVALID_QUERY, { cursor: [CURSOR_REFUSED] });
      before = position;
    }
    const page = await this.#audit.page({
      managerId: caller.id,
      ...(accountId !== undefined && { accountId }),
      ...(key !== undefined && { key }),
      ...(actor !== undefined && { actor }),
      ...(from !== undefined && { from }),
      ...(to !== undefined && { to }),
      ...(before !== undefined && { before }),
      limit: limit ?? DEFAULT_AUDIT_PAGE,
    });
    return {
      entries: page.entries,
      nextCursor: page.lastId === null ? null : encodeListCursor(page.lastId, binding, this.#cursorSeal),
    };
  }
}
