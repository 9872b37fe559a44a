import { hashPassword } from "./crypto/passwords.ts";
import type { DataDir } from "./dataDir.ts";
import { passwordProblem, usernameProblem } from "./domain/accountRules.ts";
import { newAccountKey } from "./domain/identifiers.ts";
import type { Account } from "./store/accountStore.ts";

/** Administration of the accounts whose Basic credentials manage keys. */

export class AccountAdminError extends Error {}

export interface AccountSummary {
  accountKey: string;
  username: string;
  parentUsername: string | null;
  createdAt: number;
}

export async function addAccount(
  data: DataDir,
  request: { username: string; password: string | undefined; parentUsername?: string | undefined },
): Promise<Account> {
  const problem = usernameProblem(request.username) ?? passwordProblem(request.password);
  if (problem) throw new AccountAdminError(problem);
  let parentId: number | null = null;
  if (request.parentUsername !== undefined) {
    const parent = data.accounts.byUsername(request.parentUsername);
    if (!parent) throw new AccountAdminError(`no account named ${request.parentUsername} to be the parent`);
    parentId = parent.id;
  }
  if (data.accounts.byUsername(request.username)) {
    throw new AccountAdminError(`an account named ${request.username} already exists`);
  }
  const passwordHash = await hashPassword(request.password as string);
  try {
    return data.accounts.insert({
      accountKey: newAccountKey(),
      username: request.username,
      passwordHash,
      parentId,
      createdAt: Date.now(),
    });
  } catch (error) {
    // Another process added the same username while we were hashing.
    if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") {
      throw new AccountAdminError(`an account named ${request.username} already exists`);
    }
    throw error;
  }
}

export function listAccounts(data: DataDir): AccountSummary[] {
  const accounts = data.accounts.list();
  const usernames = new Map(accounts.map((account) => [account.id, account.username]));
  return accounts.map((account) => ({
    accountKey: account.accountKey,
    username: account.username,
    parentUsername: account.parentId === null ? null : (usernames.get(account.parentId) ?? null),
    createdAt: account.createdAt,
  }));
}

export async function changePassword(
  data: DataDir,
  username: string,
  password: string | undefined,
): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new AccountAdminError(problem);
  const account = data.accounts.byUsername(username);
  if (!account) throw new AccountAdminError(`no account named ${username}`);
  data.accounts.setPasswordHash(account.id, await hashPassword(password as string));
}
