import type { ApiKeyDto, KeySort } from "../../../shared/apiKeys.ts";
import type { KeyQueryDto } from "../../../shared/bridge.ts";
import type { KeyServiceClient } from "../../client/keyServiceClient.ts";
import { clientQueryOf } from "./keyPager.ts";

/** Keys per request while main walks a whole filtered list (a bulk selection, an export). */
const WALK_PAGE_LIMIT = 1_000;

/**
 * Every key the query matches, in the order asked, a page at a time (`onPage` for each): a
 * Keydesk service pages, any other answers its whole list at once (then the one page is all).
 */
export async function walkKeys(
  client: KeyServiceClient,
  accountKey: string,
  query: KeyQueryDto | undefined,
  sort: KeySort | undefined,
  onPage: (keys: ApiKeyDto[]) => void,
): Promise<void> {
  const clientQuery = clientQueryOf(query, sort);
  let cursor: string | undefined;
  do {
    const page = await client.listPage(accountKey, clientQuery, { limit: WALK_PAGE_LIMIT, cursor });
    onPage(page.keys);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
