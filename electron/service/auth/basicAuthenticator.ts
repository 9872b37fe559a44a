import { DECOY_PASSWORD_HASH, MAX_PASSWORD_BYTES, verifyPassword } from "../crypto/passwords.ts";
import { ApiError } from "../errors.ts";
import type { Account, AccountStore } from "../store/accountStore.ts";
import type { FailureThrottle } from "./failureThrottle.ts";
import type { VerifiedCredentials } from "./verifiedCredentials.ts";

const WRONG_CREDENTIALS = "the username or password is wrong";

/** Verifies Basic credentials against the account store, cheaply after the first time. */
export class BasicAuthenticator {
  readonly #accounts: AccountStore;
  readonly #throttle: FailureThrottle;
  readonly #verified: VerifiedCredentials;
  /** One KDF run per distinct credentials, however many requests carry them at once. */
  readonly #inFlight = new Map<string, Promise<boolean>>();

  constructor(accounts: AccountStore, throttle: FailureThrottle, verified: VerifiedCredentials) {
    this.#accounts = accounts;
    this.#throttle = throttle;
    this.#verified = verified;
  }

  async authenticate(username: string, password: string, clientAddress: string): Promise<Account> {
    const account = this.#accounts.byUsername(username);
    const storedHash = account?.passwordHash ?? DECOY_PASSWORD_HASH;
    const digest = this.#verified.digest(username, password, storedHash);
    if (account && this.#verified.has(digest)) return account;

    let verification = this.#inFlight.get(digest);
    if (!verification) {
      const retryAfter = this.#throttle.take(clientAddress);
      if (retryAfter > 0) {
        throw new ApiError(
          "TOO_MANY_REQUESTS",
          `too many failed sign-in attempts from this address; try again in ${retryAfter} s`,
          undefined,
          { "retry-after": String(retryAfter) },
        );
      }
      verification = this.#verify(account, password, storedHash, digest, clientAddress);
      this.#inFlight.set(digest, verification);
      verification.finally(() => this.#inFlight.delete(digest)).catch(() => {});
    }
    if (account && (await verification)) return account;
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
    const matches = !tooLong && (await verifyPassword(password, storedHash));
    if (!account || !matches) return false;
    this.#throttle.refund(clientAddress);
    this.#verified.add(digest);
    return true;
  }
}
