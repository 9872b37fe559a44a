import type { CallContext, KeyGrant, RefusalReason } from "../domain/keyAuthorization.ts";
import { refusalOf } from "../domain/keyAuthorization.ts";
import { ApiError } from "../errors.ts";
import type { Account, AccountStore } from "../store/accountStore.ts";
import type { ApiKeyStore } from "../store/apiKeyStore.ts";
import type { ExternalChanges } from "../store/externalChanges.ts";
import { ReadThroughCache } from "../store/readThroughCache.ts";

/** Told of every App-authorized call of a known key and how it ended (the UsageRecorder). */
export type CallOutcomeListener = (
  key: string,
  outcome: RefusalReason | "allowed",
  call: CallContext,
) => void;

interface Entry {
  grant: KeyGrant;
  account: Account;
  /** Refusals that do not depend on the caller's address, built once per reason. */
  refusals: Map<RefusalReason, ApiError>;
}

/**
 * Authorizes `App <publicApiKey>` calls from memory: digest → grant. An entry is dropped the
 * moment its key is written through this process's store, and everything when another process
 * wrote the database (see ReadThroughCache), so a disabled key is refused on the very next
 * request whoever disabled it.
 */
export class AppKeyAuthorizer {
  readonly #keys: ApiKeyStore;
  readonly #accounts: AccountStore;
  readonly #entries: ReadThroughCache<Entry>;
  /**
   * The last key seen on each connection and its digest: a keep-alive client sends the same
   * key on every request, and the HMAC was the largest cost left on the hot path. Held only as
   * long as the connection lives.
   */
  readonly #lastOnConnection = new WeakMap<object, { publicApiKey: string; digest: Buffer; id: string }>();

  readonly #onOutcome: CallOutcomeListener | undefined;

  constructor(
    changes: ExternalChanges,
    keys: ApiKeyStore,
    accounts: AccountStore,
    options: { capacity?: number; onOutcome?: CallOutcomeListener } = {},
  ) {
    this.#onOutcome = options.onOutcome;
    this.#keys = keys;
    this.#accounts = accounts;
    this.#entries = new ReadThroughCache(changes, options.capacity ?? 100_000);
    keys.onChange((digest) => this.#entries.delete(digest.toString("base64")));
  }

  /** The key's digest, and the digest in base64 as the cache key. */
  #digest(publicApiKey: string, connection: object | undefined): { digest: Buffer; id: string } {
    const last = connection && this.#lastOnConnection.get(connection);
    if (last && last.publicApiKey === publicApiKey) return last;
    const digest = this.#keys.digestOf(publicApiKey);
    const computed = { publicApiKey, digest, id: digest.toString("base64") };
    if (connection) this.#lastOnConnection.set(connection, computed);
    return computed;
  }

  #lookup(publicApiKey: string, connection?: object): Entry | undefined {
    const { digest, id } = this.#digest(publicApiKey, connection);
    return this.#entries.get(id, () => {
      const grant = this.#keys.grantByDigest(digest);
      const account = grant && this.#accounts.byId(grant.accountId);
      return grant && account ? { grant, account, refusals: new Map() } : undefined;
    });
  }

  /** The account the key acts for, or an ApiError saying which rule refused the call. */
  authorize(
    publicApiKey: string,
    call: CallContext,
    connection?: object,
  ): { grant: KeyGrant; account: Account } {
    const entry = this.#lookup(publicApiKey, connection);
    if (!entry)
      throw new ApiError("UNAUTHORIZED", "the API key is not known; check the Authorization header");
    const refusal = refusalOf(entry.grant, call);
    this.#onOutcome?.(entry.grant.key, refusal ? refusal.reason : "allowed", call);
    if (refusal) {
      if (refusal.reason === "address-not-allowed") throw new ApiError("FORBIDDEN", refusal.text);
      let error = entry.refusals.get(refusal.reason);
      if (!error) {
        error = new ApiError("FORBIDDEN", refusal.text);
        entry.refusals.set(refusal.reason, error);
      }
      throw error;
    }
    return entry;
  }

  /** Whether a key with this value exists (for management paths, which refuse every API key). */
  knows(publicApiKey: string): boolean {
    return this.#lookup(publicApiKey) !== undefined;
  }
}
