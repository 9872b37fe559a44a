import { DECOY_PASSWORD_HASH, MAX_PASSWORD_BYTES, verifyPassword } from "../crypto/passwords.ts";
import { ApiError } from "../errors.ts";
import type { Account } from "../store/accountStore.ts";
import type { AccountReads } from "../store/store.ts";
import type { FailureThrottle } from "./failureThrottle.ts";
import { PasswordCheckQueue, PasswordChecksBusy } from "./passwordCheckQueue.ts";
import type { VerifiedCredentials } from "./verifiedCredentials.ts";

const WRONG_CREDENTIALS = "the username or password is wrong";

const tooManyRequests = (text: string, retryAfter: number) =>
  new ApiError("TOO_MANY_REQUESTS", text, undefined, { "retry-after": String(retryAfter) });

/**
 * Verifies Basic credentials against the account store, cheaply after the first time.
 *
 * An unknown username costs exactly what a wrong password costs: the same scrypt run (against a
 * decoy hash with the current parameters), awaited, through the same throttle and queue; only
 * then is either answered, with the same 401. Otherwise the answer time tells which usernames exist.
 */
export class BasicAuthenticator {
  readonly #accounts: AccountReads;
  readonly #throttle: FailureThrottle;
  readonly #verified: VerifiedCredentials;
  readonly #checks: PasswordCheckQueue;
  /** One KDF run per distinct credentials, however many requests carry them at once. */
  readonly #inFlight = new Map<string, Promise<boolean>>();

  constructor(
    accounts: AccountReads,
    throttle: FailureThrottle,
    verified: VerifiedCredentials,
    checks = new PasswordCheckQueue((address) => throttle.remaining(address)),
  ) {
    this.#accounts = accounts;
    this.#throttle = throttle;
    this.#verified = verified;
    this.#checks = checks;
  }

  async authenticate(username: string, password: string, clientAddress: string): Promise<Account> {
    const account = await this.#accounts.byUsername(username);
    const storedHash = account?.passwordHash ?? DECOY_PASSWORD_HASH;
    const digest = this.#verified.digest(username, password, storedHash);
    if (account && this.#verified.has(digest)) return account;

    let verification = this.#inFlight.get(digest);
    if (!verification) {
      const retryAfter = this.#throttle.take(clientAddress);
      if (retryAfter > 0) {
        throw tooManyRequests(
          `too many failed sign-in attempts from this address; try again in ${retryAfter} s`,
          retryAfter,
        );
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
      matches =
        !tooLong && (await this.#checks.run(clientAddress, () => verifyPassword(password, storedHash)));
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
    this.#verified.add(digest);
    return true;
  }
}
