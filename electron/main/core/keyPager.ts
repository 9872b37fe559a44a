import { type ApiKeyDto, KEY_INCLUDES, type KeySort } from "../../../shared/apiKeys.ts";
import type { KeyQueryDto } from "../../../shared/bridge.ts";
import type { KeyPage, KeyQuery, KeyServiceClient } from "../../client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../client/serviceCallFailure.ts";
import { CoreFailure } from "./coreFailure.ts";

/**
 * Pages of an account's keys for the renderer, whatever the remote does. A Keydesk service pages
 * itself: its pages and cursors are passed through. A service that ignores paging answers the
 * whole filtered list at once (KeyPage.paged = false); main then keeps that list (one entry per
 * profile, account and query, replaced by the next first-page request of the same query, all
 * dropped when another profile is asked for) and hands it out in pages with cursors of its own,
 * so the renderer never receives more than `limit` keys per call.
 */

/** Main's own cursors start with this (a Keydesk service's cursors are base64url: no colon). */
const MAIN_CURSOR_PREFIX = "main:";
/**
 * Whole lists kept at most (each keystroke in the name filter is a query of its own).
 * @internal Exported for tests.
 */
export const MAX_KEPT_LISTS = 8;
/**
 * A kept list this young answers keys.count without asking the remote again.
 * @internal Exported for tests.
 */
export const KEPT_LIST_FRESH_MS = 2_000;
/** Page size when main has to walk a paging service without a count route to count. */
const COUNT_WALK_LIMIT = 10_000;

/** @internal Exported for tests. */
export function mainCursor(offset: number): string {
  return `${MAIN_CURSOR_PREFIX}${offset}`;
}

/**
 * The offset of one of main's cursors; INVALID_ARGUMENT when it is not one.
 * @internal Exported for tests.
 */
export function parseMainCursor(cursor: string): number {
  const digits = cursor.slice(MAIN_CURSOR_PREFIX.length);
  if (!cursor.startsWith(MAIN_CURSOR_PREFIX) || !/^(0|[1-9]\d{0,9})$/.test(digits)) {
    throw invalidCursor(`"${cursor}" is not a cursor of this key list`);
  }
  return Number(digits);
}

function invalidCursor(text: string): CoreFailure {
  return new CoreFailure("INVALID_ARGUMENT", `invalid arguments for keys.page: cursor ${text}`, {
    cursor: [text],
  });
}

/** The client's query of the bridge's: a blank name filter is no filter. */
export function clientQueryOf(query: KeyQueryDto | undefined, sort?: KeySort): KeyQuery {
  const nameContains = query?.nameContains?.trim() ?? "";
  return {
    ...(sort !== undefined && { sort }),
    ...(query?.enabled !== undefined && { enabled: query.enabled }),
    ...(query?.name !== undefined && { name: query.name }),
    ...(query?.permission !== undefined && { permission: query.permission }),
    ...(query?.state !== undefined && { state: query.state }),
    ...(query?.unusedForDays !== undefined && { unusedForDays: query.unusedForDays }),
    ...(nameContains !== "" && { nameContains }),
    // The Keys table shows last use and creation: asked of every service, answered by ours.
    include: KEY_INCLUDES,
  };
}

/** Who is asked: the profile as it is now (an edited address or user is another remote). */
export interface PagerTarget {
  profileId: string;
  client: KeyServiceClient;
}

interface KeptList {
  /** The first page as the remote answered it (paged = false: the whole filtered list). */
  first: Promise<KeyPage>;
  /** When the request was sent. */
  at: number;
}

export class KeyPager {
  readonly #kept = new Map<string, KeptList>();
  #remote: string | undefined;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** How many whole lists are kept (tests). */
  get keptLists(): number {
    return this.#kept.size;
  }

  async page(
    target: PagerTarget,
    accountKey: string,
    bridgeQuery: KeyQueryDto | undefined,
    options: { limit: number; cursor?: string | undefined; sort?: KeySort | undefined },
  ): Promise<{ keys: ApiKeyDto[]; nextCursor: string | null }> {
    const query = clientQueryOf(bridgeQuery, options.sort);
    const id = this.#entryId(target, accountKey, query);
    const { cursor, limit } = options;
    if (cursor === undefined) {
      const first = this.#fetchFirst(target, accountKey, query, limit, id);
      const page = await first;
      if (page.paged) return { keys: page.keys.slice(0, limit), nextCursor: page.nextCursor };
      return slice(page.keys, 0, limit);
    }
    if (cursor.startsWith(MAIN_CURSOR_PREFIX)) {
      const offset = parseMainCursor(cursor);
      // The list is gone (replaced by another query's, or the profile changed): fetch it again.
      const page = await (this.#kept.get(id)?.first ??
        this.#fetchFirst(target, accountKey, query, limit, id));
      if (page.paged) throw invalidCursor("is out of date: load the list from its first page again");
      if (offset > page.keys.length) throw invalidCursor(`points past the end of the list (${offset})`);
      this.#touch(id);
      return slice(page.keys, offset, limit);
    }
    let page: KeyPage;
    try {
      page = await target.client.listPage(accountKey, query, { limit, cursor });
    } catch (error) {
      if (error instanceof ServiceCallFailure && error.status === 400) {
        throw invalidCursor(`was refused by the service: ${error.text}`);
      }
      throw error;
    }
    // A service that ignores paging answered its whole list again: the cursor was not its own.
    if (!page.paged) throw invalidCursor("is not one this service gave out");
    return { keys: page.keys.slice(0, limit), nextCursor: page.nextCursor };
  }

  /** How many keys the query matches: the service's count, else the length of the whole list. */
  async count(
    target: PagerTarget,
    accountKey: string,
    bridgeQuery: KeyQueryDto | undefined,
  ): Promise<number> {
    const query = clientQueryOf(bridgeQuery);
    const counted = await target.client.countKeys(accountKey, query);
    if (counted !== null) return counted;
    const id = this.#entryId(target, accountKey, query);
    const kept = this.#kept.get(id);
    const fresh = kept !== undefined && this.#now() - kept.at <= KEPT_LIST_FRESH_MS;
    let page = await (fresh ? kept.first : this.#fetchFirst(target, accountKey, query, COUNT_WALK_LIMIT, id));
    if (!page.paged) return page.keys.length;
    // A service that pages but cannot count: walk its pages.
    let count = page.keys.length;
    while (page.nextCursor !== null) {
      page = await target.client.listPage(accountKey, query, {
        limit: COUNT_WALK_LIMIT,
        cursor: page.nextCursor,
      });
      count += page.keys.length;
    }
    return count;
  }

  /** Asks for the first page and keeps the answer when it is a whole list (replacing the older one). */
  #fetchFirst(
    target: PagerTarget,
    accountKey: string,
    query: KeyQuery,
    limit: number,
    id: string,
  ): Promise<KeyPage> {
    const first = target.client.listPage(accountKey, query, { limit });
    const entry: KeptList = { first, at: this.#now() };
    this.#kept.delete(id);
    this.#kept.set(id, entry);
    while (this.#kept.size > MAX_KEPT_LISTS) {
      const oldest = this.#kept.keys().next().value as string;
      this.#kept.delete(oldest);
    }
    const forget = () => {
      if (this.#kept.get(id) === entry) this.#kept.delete(id);
    };
    // Only whole lists are worth keeping; a paging service's first page is asked for again.
    first.then((page) => page.paged && forget(), forget);
    return first;
  }

  #touch(id: string): void {
    const entry = this.#kept.get(id);
    if (entry) {
      this.#kept.delete(id);
      this.#kept.set(id, entry);
    }
  }

  #entryId(target: PagerTarget, accountKey: string, query: KeyQuery): string {
    const remote = JSON.stringify([target.profileId, target.client.baseUrl, target.client.username]);
    if (remote !== this.#remote) {
      this.#kept.clear();
      this.#remote = remote;
    }
    return JSON.stringify([
      accountKey,
      query.enabled ?? null,
      query.name ?? null,
      query.permission ?? null,
      query.nameContains ?? null,
      query.state ?? null,
      query.sort ?? null,
    ]);
  }
}

function slice(
  keys: ApiKeyDto[],
  offset: number,
  limit: number,
): { keys: ApiKeyDto[]; nextCursor: string | null } {
  const end = offset + limit;
  return { keys: keys.slice(offset, end), nextCursor: end < keys.length ? mainCursor(end) : null };
}
