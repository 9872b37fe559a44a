import { namedAccount } from "../../../../shared/accountNamed.ts";
import { type CreateApiKeyRequest, KEY_INCLUDES } from "../../../../shared/apiKeys.ts";
import { KEY_HISTORY_LIMIT } from "../../../../shared/audit.ts";
import type { KeyFragmentMatchesDto, RevealedApiKey } from "../../../../shared/bridge.ts";
import { formatApiDateTime } from "../../../../shared/datetime.ts";
import type { KeyServiceClient } from "../../../client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../../client/serviceCallFailure.ts";
import { activeClient, activeProfile, type CoreContext, clientOf, type HandlerTable } from "../context.ts";
import {
  FRAGMENT_PAGE_KEYS,
  fragmentMatcher,
  MAX_FRAGMENT_MATCHES,
  MAX_FRAGMENT_SEARCH,
} from "../keyFragment.ts";
import { KeyPager, type PagerTarget } from "../keyPager.ts";
import { toKeyView, toRevealedKey } from "../keyViews.ts";

type KeyMethods =
  | "keys.page"
  | "keys.count"
  | "keys.get"
  | "keys.lookup"
  | "keys.lookupElsewhere"
  | "keys.findByFragment"
  | "keys.create"
  | "keys.createTfa"
  | "keys.update"
  | "keys.setEnabled"
  | "keys.revealPublicApiKey"
  | "keys.history"
  | "keys.usageSeries";

/** One pager (and its kept lists) per core. */
const pagers = new WeakMap<CoreContext, KeyPager>();

function pagerOf(context: CoreContext): KeyPager {
  let pager = pagers.get(context);
  if (!pager) {
    pager = new KeyPager();
    pagers.set(context, pager);
  }
  return pager;
}

async function activeTarget(context: CoreContext): Promise<PagerTarget> {
  const profile = activeProfile(context);
  return { profileId: profile.id, client: await clientOf(context, profile) };
}

/**
 * Key operations, through the active profile's API client. Keys reach the renderer without their
 * publicApiKey (a hint instead), except when created (shown once) or revealed on request.
 */
export const keyHandlers: HandlerTable<KeyMethods> = {
  "keys.page": async ({ accountKey, query, cursor, limit, sort }, context) => {
    const page = await pagerOf(context).page(await activeTarget(context), accountKey, query, {
      limit,
      cursor,
      sort,
    });
    return { keys: page.keys.map(toKeyView), nextCursor: page.nextCursor };
  },
  "keys.count": async ({ accountKey, query }, context) => ({
    count: await pagerOf(context).count(await activeTarget(context), accountKey, query),
  }),
  "keys.get": async ({ accountKey, key }, context) =>
    toKeyView(await (await activeClient(context)).get(accountKey, key, KEY_INCLUDES)),
  "keys.lookup": async ({ accountKey, publicApiKey }, context) => {
    const found = await (await activeClient(context)).lookup(accountKey, publicApiKey, KEY_INCLUDES);
    return found && toKeyView(found);
  },
  "keys.lookupElsewhere": async ({ accountKey, publicApiKey }, context) => {
    const client = await activeClient(context);
    const accounts = await client.accounts();
    const inView = namedAccount(accountKey);
    for (const account of accounts) {
      if (inView(account)) continue;
      if ((await client.lookup(account.accountKey, publicApiKey)) !== null) return account;
    }
    return null;
  },
  "keys.findByFragment": async ({ accountKey, fragment }, context) => {
    const client = await activeClient(context);
    const foundBy = fragmentMatcher(fragment);
    const matches: KeyFragmentMatchesDto["matches"] = [];
    let searched = 0;
    let cursor: string | undefined;
    for (;;) {
      const page = await client.listPage(
        accountKey,
        { include: KEY_INCLUDES },
        { limit: FRAGMENT_PAGE_KEYS, cursor },
      );
      for (const key of page.keys) {
        searched++;
        const found = foundBy(key);
        if (found !== null) matches.push({ key: toKeyView(key), foundBy: found });
        if (matches.length === MAX_FRAGMENT_MATCHES) {
          return { matches, searched, complete: false };
        }
      }
      if (page.nextCursor === null || searched >= MAX_FRAGMENT_SEARCH) {
        return { matches, searched, complete: page.nextCursor === null };
      }
      cursor = page.nextCursor;
    }
  },
  "keys.create": async ({ accountKey, request }, context) =>
    createdKey(await activeClient(context), accountKey, request),
  // Made by the ordinary create, TFA only and named in the same call: one change, one history
  // entry. The 2FA call (POST /2fa/2/api-key) takes no name, so a rename had to follow it, and it
  // makes keys in the credentials' own account only; the service's create gives the same key
  // (the TFA permission and no other rule).
  "keys.createTfa": async ({ accountKey, name }, context) =>
    createdKey(await activeClient(context), accountKey, {
      name: name ?? `TFA key ${formatApiDateTime(Date.now())}`,
      permissions: ["TFA"],
    }),
  "keys.update": async ({ accountKey, key, request }, context) =>
    toKeyView(await (await activeClient(context)).update(accountKey, key, request)),
  "keys.setEnabled": async ({ accountKey, key, enabled }, context) =>
    toKeyView(await (await activeClient(context)).setEnabled(accountKey, key, enabled)),
  "keys.revealPublicApiKey": async ({ accountKey, key }, context) =>
    toRevealedKey(await (await activeClient(context)).get(accountKey, key)),
  // Key ids are unique in a Keydesk service: the key alone names its entries. The accountKey is
  // the caller's view; a key of an account these credentials do not manage has no entries for them.
  "keys.history": async ({ key }, context) => {
    const page = await (await activeClient(context)).keyHistory(key, KEY_HISTORY_LIMIT);
    return page === null
      ? { kept: false }
      : { kept: true, entries: page.entries, more: page.nextCursor !== null };
  },
  "keys.usageSeries": async ({ accountKey, key }, context) => {
    const series = await (await activeClient(context)).usageSeries(accountKey, key);
    return series === null ? { recorded: false } : { recorded: true, ...series };
  },
};

/** A created key with its publicApiKey, as the table's rows are (with its usage and creation time). */
async function createdKey(
  client: KeyServiceClient,
  accountKey: string,
  request: CreateApiKeyRequest,
): Promise<RevealedApiKey> {
  const created = await client.create(accountKey, request);
  // The create's answer has the spec's fields only: the new row shows "never used" and its
  // creation time like every other (from our own service; another leaves them out).
  const extras = await client.get(accountKey, created.key, KEY_INCLUDES).catch((error: unknown) => {
    if (error instanceof ServiceCallFailure) return created;
    throw error;
  });
  return toRevealedKey({ ...extras, publicApiKey: created.publicApiKey });
}
