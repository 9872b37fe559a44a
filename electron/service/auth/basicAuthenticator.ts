import { DECOY_PASSWORD_HASH, MAX_PASSWORD_BYTES, verifyPassword } from "../crypto/passwords.ts";
import type { Account } from "../domain/accounts.ts";
import { ApiError } from "../errors.ts";
import type { AccountReads } from "../store/store.ts";
import type { FailureThrottle } from "./failureThrottle.ts";
import { PasswordCheckQueue, PasswordChecksBusy } from "./passwordCheckQueue.ts";
import type { SharedFailureThrottle } from "./sharedFailureThrottle.ts";
import type { VerifiedCredentials } from "./verifiedCredentials.ts";

const WRONG_CREDENTIALS = "the username or password is wrong";

/** The entry that says these credentials were verified, or passed unthrottled, from this address. */
const verifiedFrom = (clientAddress: string, digest: string) => `${clientAddress}\0${digest}`;

const tooManyRequests = (text: string, retryAfter: number) =>
  new ApiError("TOO_MANY_REQUESTS", text, undefined, { "retry-after": String(retryAfter) });

/** The refusal of an address out of attempts (its own throttle's, or the replicas' shared one). */
const addressThrottled = (retryAfter: number) =>
  tooManyRequests(
    `too many failed sign-in attempts from this address; try again in ${retryAfter} s`,
    retryAfter,
  );

/**
 * Verifies Basic credentials against the account store, cheaply after the first time.
 *
 * An unknown username costs exactly what a wrong password costs: the same scrypt run (against a
 * decoy hash with the current parameters), awaited, through the same throttle and queue; only
 * then is either answered, with the same 401. Otherwise the answer time tells which usernames exist.
 *
 * With a `shared` throttle (replicas of one database) an attempt also takes from the address's
 * bucket in the store, after this process's own allowed it and once its turn in the check queue
 * came: the address's burst is counted once across replicas. A refusal there gives this
 * process's token back (no attempt was made).
 */
export class BasicAuthenticator {
  readonly #accounts: AccountReads;
  readonly #throttle: FailureThrottle;
  readonly #verified: VerifiedCredentials;
  readonly #checks: PasswordCheckQueue;
  readonly #shared: SharedFailureThrottle | undefined;
  /** One KDF run per distinct credentials, however many requests carry them at once. */
  readonly #inFlight = new Map<string, Promise<boolean>>();

  constructor(
    accounts: AccountReads,
    throttle: FailureThrottle,
    verified: VerifiedCredentials,
    checks = new PasswordCheckQueue((address) => throttle.remaining(address)),
    shared?: SharedFailureThrottle,
  ) {
    this.#shared = shared;
    this.#accounts = accounts;
    this.#throttle = throttle;
    this.#verified = verified;
    this.#checks = checks;
  }

  async authenticate(username: string, password: string, clientAddress: string): Promise<Account> {
    const account = await this.#accounts.byUsername(username);
    const storedHash = account?.passwordHash ?? DECOY_PASSWORD_HASH;
    const digest = this.#verified.digest(username, password, storedHash);
    if (account && this.#verified.has(digest)) {
      // Remembered credentials take no attempt, so an app that keeps failing on the admin's own
      // machine cannot lock the admin out. From a throttled address they pass only where they were
      // used from that address before: let through from anywhere, the one 200 among the 429s of
      // the wrong guesses would tell a guesser elsewhere which guess was right.
      const here = verifiedFrom(clientAddress, digest);
      if (this.#throttle.remaining(clientAddress) >= 1) {
        this.#verified.add(here);
        return account;
      }
      if (this.#verified.has(here)) return account;
      const retryAfter = this.#throttle.take(clientAddress);
      if (retryAfter > 0) {
        throw addressThrottled(retryAfter);
      }
      this.#throttle.refund(clientAddress);
      this.#verified.add(here);
      return account;
    }

    let verification = this.#inFlight.get(digest);
    if (!verification) {
      const retryAfter = this.#throttle.take(clientAddress);
      if (retryAfter > 0) {
        throw addressThrottled(retryAfter);
      }
      verification = this.#verify(account, password, storedHash, digest, clientAddress);
      this.#inFlight.set(digest, verification);
      verification.finally(() => this.#inFlight.delete(digest)).catch(() => {});
    }
    // Awaited whether or not the account exists (see the class comment).
    const verified = await verification;
    if (account && verified) return account;
    throw new ApiError("UNAUTHORIZED", WRONG_CREDENTIALS);
  }

  async #takeShared(clientAddress: string): Promise<void> {
    const retryAfter = this.#shared ? await this.#shared.take(clientAddress) : 0;
    if (retryAfter === 0) return;
    this.#throttle.refund(clientAddress);
    throw addressThrottled(retryAfter);
  }

  async #verify(
    account: Account | undefined,
    password: string,
    storedHash: string,
    digest: string,
    clientAddress: string,
  ): Promise<boolean> {
    const tooLong = Buffer.byteLength(password) > MAX_PASSWORD_BYTES;
    let matches = false;
    try {
      // The shared take waits its turn in the queue like the check itself: a flood of guesses
      // queued for the database does not hold up another address's sign-in either.
      matches = tooLong
        ? await this.#takeShared(clientAddress).then(() => false)
        : await this.#checks.run(clientAddress, async () => {
            await this.#takeShared(clientAddress);
            return verifyPassword(password, storedHash);
          });
    } catch (error) {
      // The attempt keeps its token: a flooding address that is refused here falls behind in
      // the queue (its standing drops) and soon reaches its own throttle, both at no KDF cost.
      if (error instanceof PasswordChecksBusy) {
        throw tooManyRequests(
          `too many sign-ins are being checked right now; try again in ${error.retryAfterSeconds} s`,
          error.retryAfterSeconds,
        );
      }
      throw error;
    }
    if (!account || !matches) return false;
    this.#throttle.refund(clientAddress);
    await this.#shared?.refund(clientAddress);
    this.#verified.add(digest);
    this.#verified.add(verifiedFrom(clientAddress, digest));
    return true;
  }
}
