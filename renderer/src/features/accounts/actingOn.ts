import { namedAccount } from "../../../../shared/accountNamed.ts";
import type { AccountDto } from "../../../../shared/bridge.ts";

/**
 * Where an action on keys acts, in words: a dialog that changes or shows a key, and the notice of
 * a copy, name the profile and the account, so that a key of one service is never taken for
 * another's. Pure, so that it is tested without a browser.
 */

/** "owner (own account)" or "qa (sub-account)"; the accountKey while the accounts are not known. */
export function accountLabel(accountKey: string, accounts: readonly AccountDto[] | undefined): string {
  const found = accounts?.find(namedAccount(accountKey));
  if (!found) return accountKey === "_" ? "own account" : `account ${accountKey}`;
  return `${found.username} (${found.parentAccountKey === null ? "own account" : "sub-account"})`;
}

/** "profile “Local (this computer)”, account owner (own account)". */
export function actingOnText(profileName: string, account: string): string {
  return `profile “${profileName}”, account ${account}`;
}
