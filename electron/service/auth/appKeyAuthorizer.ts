import type { Account } from "../domain/accounts.ts";
import type { CallContext, KeyGrant, RefusalReason } from "../domain/keyAuthorization.ts";
import { refusalOf } from "../domain/keyAuthorization.ts";
import { ApiError } from "../errors.ts";
import { ReadThroughCache } from "../store/readThroughCache.ts";
import type { AccountReads, ApiKeyReads, CacheLookups, ChangeFeed } from "../store/store.ts";

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

/** What an authorized call acts for. */
export interface AuthorizedCall {
  grant: KeyGrant;
  account: Account;
}

/**
 * Authorizes `App <publicApiKey>` calls from memory: digest → grant. An entry is dropped the
 * moment its key is written through this process's store or the change feed names its key or
 * account, and everything when the feed's generation moves (see ReadThroughCache), so a disabled key is refused on the very next
 * request whoever disabled it. A key found in memory is decided synchronously (the hot path
 * awaits nothing); only a key that must be read from the store answers a promise.
 */
export class AppKeyAuthorizer {
  readonly #keys: ApiKeyReads;
  readonly #accounts: AccountReads;
  readonly #entries: ReadThroughCache<Entry>;
  /**
   * The last key seen on each connection and its digest: a keep-alive client sends the same
   * key on every request, and the HMAC was the largest cost left on the hot path. Held only as
   * long as the connection lives.
   */
  readonly #lastOnConnection = new WeakMap<object, { publicApiKey: string; digest: Buffer; id: string }>();

  readonly #onOutcome: CallOutcomeListener | undefined;
  readonly #onUnknownKey: (() => void) | undefined;

  /**
   * `onOutcome`: told of every call of a known key; `onUnknownKey`: of every call with a key no
   * account has; `lookups`: the key cache's hits and misses are counted there (the metrics).
   */
  constructor(
    changes: ChangeFeed,
    keys: ApiKeyReads,
    accounts: AccountReads,
    options: {
      capacity?: number;
      onOutcome?: CallOutcomeListener;
      onUnknownKey?: () => void;
      lookups?: CacheLookups;
    } = {},
  ) {
    this.#onOutcome = options.onOutcome;
    this.#onUnknownKey = options.onUnknownKey;
    this.#keys = keys;
    this.#accounts = accounts;
    this.#entries = new ReadThroughCache(changes, { capacity: options.capacity ?? 100_000 }, options.lookups);
    const drop = (digest: Buffer) => this.#entries.delete(digest.toString("base64"));
    keys.onChange(drop);
    // Another replica's writes (PostgreSQL), named one row at a time.
    changes.onKeyChange(drop);
    changes.onAccountChange((accountId) =>
      this.#entries.deleteWhere((entry) => entry.account.id === accountId),
    );
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

  #lookup(publicApiKey: string, connection?: object): Entry | Promise<Entry | undefined> {
    const { digest, id } = this.#digest(publicApiKey, connection);
    return (
      this.#entries.peek(id) ??
      this.#entries.load(id, async () => {
        const grant = await this.#keys.grantByDigest(digest);
        const account = grant && (await this.#accounts.byId(grant.accountId));
        return grant && account ? { grant, account, refusals: new Map() } : undefined;
      })
    );
  }

  /**
   * The account the key acts for, or an ApiError saying which rule refused the call: thrown
   * when the key was in memory, the promise's rejection when it had to be read.
   */
  authorize(
    publicApiKey: string,
    call: CallContext,
    connection?: object,
  ): AuthorizedCall | Promise<AuthorizedCall> {
    const entry = this.#lookup(publicApiKey, connection);
    if (entry instanceof Promise) return entry.then((loaded) => this.#decide(loaded, call));
    return this.#decide(entry, call);
  }

  #decide(entry: Entry | undefined, call: CallContext): AuthorizedCall {
    if (!entry) {
      this.#onUnknownKey?.();
      throw new ApiError("UNAUTHORIZED", "the API key is not known; check the Authorization header");
    }
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
  async knows(publicApiKey: string): Promise<boolean> {
    return (await this.#lookup(publicApiKey)) !== undefined;
  }
}
