import { USERNAME_PATTERN, USERNAME_RULE } from "../../../shared/credentialRules.ts";
import { MAX_PASSWORD_BYTES } from "../crypto/passwords.ts";

export function usernameProblem(username: string): string | undefined {
  return USERNAME_PATTERN.test(username) ? undefined : USERNAME_RULE;
}

export function passwordProblem(password: string | undefined): string | undefined {
  if (password === undefined || password === "") return "the password is empty: set KEY_SERVICE_PASSWORD";
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES)
    return `the password is longer than ${MAX_PASSWORD_BYTES} bytes`;
  return undefined;
}

/**
 * The accounts of `all` that `callerId` manages: itself and its sub-accounts at any depth, in the
 * list's order (the same walk as the store's `manages`, over a list already read: no read per account).
 */
export function managedAccounts<A extends { id: number; parentId: number | null }>(
  all: readonly A[],
  callerId: number,
): A[] {
  const parentOf = new Map(all.map((account) => [account.id, account.parentId]));
  const managed = (id: number): boolean => {
    let current: number | null | undefined = id;
    for (let depth = 0; current !== null && current !== undefined && depth < 64; depth++) {
      if (current === callerId) return true;
      current = parentOf.get(current);
    }
    return false;
  };
  return all.filter((account) => managed(account.id));
}
