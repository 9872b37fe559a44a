import type { Account } from "../domain/accounts.ts";
import { ApiError } from "../errors.ts";
import type { AccountReads, Store } from "../store/store.ts";
import { isSessionLive, newSessionToken, sessionExpiresAt, sessionsToEnd } from "./ibssoSessions.ts";

const UNKNOWN_SESSION =
  "the IBSSO token is not known, was ended or has expired (a session lives 60 minutes); create a new one with POST /auth/1/session";

/**
 * Creates, checks and ends IBSSO sessions (the rules: ibssoSessions.ts) in the store, where only
 * a keyed digest of each token is kept. Expired sessions are deleted lazily: a batch at each create,
 * and the one a request names when it is found expired.
 */
export class IbssoAuthenticator {
  readonly #store: Pick<Store, "ibssoSessions" | "write">;
  readonly #accounts: AccountReads;
  readonly #now: () => number;

  constructor(
    store: Pick<Store, "ibssoSessions" | "write">,
    accounts: AccountReads,
    now: () => number = Date.now,
  ) {
    this.#store = store;
    this.#accounts = accounts;
    this.#now = now;
  }

  /** A new session of `account`: its token, which is never stored nor shown again. */
  async create(account: Account): Promise<string> {
    const token = newSessionToken();
    const digest = this.#store.ibssoSessions.digestOf(token);
    await this.#store.write(async (tx) => {
      const now = this.#now();
      await tx.ibssoSessions.purgeExpired(now);
      const live = await tx.ibssoSessions.liveOf(account.id, now);
      await tx.ibssoSessions.delete(sessionsToEnd(live).map((session) => session.id));
      await tx.ibssoSessions.insert(account.id, digest, now, sessionExpiresAt(now));
    });
    return token;
  }

  /** The account a live session's token acts for; a 401 for any other token. */
  async authenticate(token: string): Promise<Account> {
    const digest = this.#store.ibssoSessions.digestOf(token);
    const session = await this.#store.ibssoSessions.byDigest(digest);
    if (session && !isSessionLive(session.expiresAt, this.#now())) {
      await this.#store.write((tx) => tx.ibssoSessions.deleteByDigest(digest));
      throw new ApiError("UNAUTHORIZED", UNKNOWN_SESSION);
    }
    const account = session && (await this.#accounts.byId(session.accountId));
    if (!account) throw new ApiError("UNAUTHORIZED", UNKNOWN_SESSION);
    return account;
  }

  /** Ends the session of a live token (a 401 for any other). */
  async end(token: string): Promise<void> {
    await this.authenticate(token);
    const digest = this.#store.ibssoSessions.digestOf(token);
    if (!(await this.#store.write((tx) => tx.ibssoSessions.deleteByDigest(digest))))
      throw new ApiError("UNAUTHORIZED", UNKNOWN_SESSION);
  }
}
