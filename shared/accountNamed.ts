/**
 * Which of the credentials' accounts an accountKey names: `_` is their own account (the one
 * without a parent), any other value the account with that accountKey. For `accounts.find`.
 */
export function namedAccount(
  accountKey: string,
): (account: { accountKey: string; parentAccountKey: string | null }) => boolean {
  return accountKey === "_"
    ? (account) => account.parentAccountKey === null
    : (account) => account.accountKey === accountKey;
}
