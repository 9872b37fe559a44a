import { userInfo } from "node:os";
import type { AuditChannel } from "../../shared/audit.ts";
import { hashPassword } from "./crypto/passwords.ts";
import { passwordProblem, usernameProblem } from "./domain/accountRules.ts";
import type { Account } from "./domain/accounts.ts";
import { newAccountKey } from "./domain/identifiers.ts";
import { DuplicateError, type Store } from "./store/store.ts";

/** Administration of the accounts whose Basic credentials manage keys. */

/** Who an account change is recorded as in the audit history. */
export interface AccountChangeOrigin {
  actor: string;
  channel: AuditChannel;
}

/**
 * A change made with the data directory itself (the command line): no account signed in, so
 * the audit names the operating-system user that ran it.
 */
function commandLineOrigin(): AccountChangeOrigin {
  let actor = "unknown";
  try {
    actor = userInfo().username || actor;
  } catch {
    // No user entry for this uid (a container): "unknown" says so.
  }
  return { actor, channel: "cli" };
}

export class AccountAdminError extends Error {}

export interface AccountSummary {
  accountKey: string;
  username: string;
  parentUsername: string | null;
  createdAt: number;
}

export async function addAccount(
  store: Store,
  request: { username: string; password: string | undefined; parentUsername?: string | undefined },
  origin: AccountChangeOrigin = commandLineOrigin(),
): Promise<Account> {
  const problem = usernameProblem(request.username) ?? passwordProblem(request.password);
  if (problem) throw new AccountAdminError(problem);
  let parentId: number | null = null;
  if (request.parentUsername !== undefined) {
    const parent = await store.accounts.byUsername(request.parentUsername);
    if (!parent) throw new AccountAdminError(`no account named ${request.parentUsername} to be the parent`);
    parentId = parent.id;
  }
  if (await store.accounts.byUsername(request.username)) {
    throw new AccountAdminError(`an account named ${request.username} already exists`);
  }
  const passwordHash = await hashPassword(request.password as string);
  const now = Date.now();
  try {
    // The account and its audit entry commit together.
    return await store.write(async (tx) => {
      const account = await tx.accounts.insert({
        accountKey: newAccountKey(),
        username: request.username,
        passwordHash,
        parentId,
        createdAt: now,
      });
      await tx.audit.append({
        at: now,
        accountId: account.id,
        ...origin,
        action: "account-add",
        reason: null,
        key: null,
        changes: {
          username: { old: null, new: account.username },
          parent: { old: null, new: request.parentUsername ?? null },
        },
        address: null,
      });
      return account;
    });
  } catch (error) {
    // Another process added the same username while we were hashing.
    if (error instanceof DuplicateError) {
      throw new AccountAdminError(`an account named ${request.username} already exists`);
    }
    throw error;
  }
}

export async function listAccounts(store: Store): Promise<AccountSummary[]> {
  const accounts = await store.accounts.list();
  const usernames = new Map(accounts.map((account) => [account.id, account.username]));
  return accounts.map((account) => ({
    accountKey: account.accountKey,
    username: account.username,
    parentUsername: account.parentId === null ? null : (usernames.get(account.parentId) ?? null),
    createdAt: account.createdAt,
  }));
}

export async function changePassword(
  store: Store,
  username: string,
  password: string | undefined,
  origin: AccountChangeOrigin = commandLineOrigin(),
): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new AccountAdminError(problem);
  const account = await store.accounts.byUsername(username);
  if (!account) throw new AccountAdminError(`no account named ${username}`);
  const passwordHash = await hashPassword(password as string);
  // No values: the entry says the password changed, never what it was or is.
  await store.write(async (tx) => {
    await tx.accounts.setPasswordHash(account.id, passwordHash);
    await tx.audit.append({
      at: Date.now(),
      accountId: account.id,
      ...origin,
      action: "account-passwd",
      reason: null,
      key: null,
      changes: {},
      address: null,
    });
  });
}
