import type { CallContext, KeyGrant } from "../domain/keyAuthorization.ts";
import { refusalOf } from "../domain/keyAuthorization.ts";
import { ApiError } from "../errors.ts";
import type { Account, AccountStore } from "../store/accountStore.ts";
import type { ApiKeyStore } from "../store/apiKeyStore.ts";
import type { Db } from "../store/database.ts";

interface Entry {
  grant: KeyGrant;
  account: Account;
}

/**
 * Authorizes `App <publicApiKey>` calls from memory: digest → grant. An entry is dropped the
 * moment its key is written through this process's store, and the whole cache is dropped when
 * another connection committed to the database (PRAGMA data_version), so a disabled key is
 * refused on the very next request whoever disabled it.
 */
export class AppKeyAuthorizer {
  readonly #keys: ApiKeyStore;
  readonly #accounts: AccountStore;
  readonly #dataVersion;
  readonly #entries = new Map<string, Entry>();
  readonly #capacity: number;
  #seenVersion: number;
  /** Requests handled in one turn of the event loop share one data_version check. */
  #checkedThisTurn = false;

  constructor(db: Db, keys: ApiKeyStore, accounts: AccountStore, capacity = 100_000) {
    this.#keys = keys;
    this.#accounts = accounts;
    this.#capacity = capacity;
    this.#dataVersion = db.prepare("PRAGMA data_version").pluck();
    this.#seenVersion = this.#dataVersion.get() as number;
    keys.onChange((digest) => this.#entries.delete(digest.toString("base64")));
  }

  #dropIfChangedElsewhere(): void {
    if (this.#checkedThisTurn) return;
    this.#checkedThisTurn = true;
    setImmediate(() => {
      this.#checkedThisTurn = false;
    });
    const version = this.#dataVersion.get() as number;
    if (version !== this.#seenVersion) {
      this.#entries.clear();
      this.#seenVersion = version;
    }
  }

  #lookup(publicApiKey: string): Entry | undefined {
    this.#dropIfChangedElsewhere();
    const digest = this.#keys.digestOf(publicApiKey);
    const id = digest.toString("base64");
    const cached = this.#entries.get(id);
    if (cached) return cached;
    const grant = this.#keys.grantByDigest(digest);
    const account = grant && this.#accounts.byId(grant.accountId);
    if (!grant || !account) return undefined;
    const entry = { grant, account };
    this.#entries.set(id, entry);
    if (this.#entries.size > this.#capacity)
      this.#entries.delete(this.#entries.keys().next().value as string);
    return entry;
  }

  /** The account the key acts for, or an ApiError saying which rule refused the call. */
  authorize(publicApiKey: string, call: CallContext): { grant: KeyGrant; account: Account } {
    const entry = this.#lookup(publicApiKey);
    if (!entry)
      throw new ApiError("UNAUTHORIZED", "the API key is not known; check the Authorization header");
    const refusal = refusalOf(entry.grant, call);
    if (refusal) throw new ApiError("FORBIDDEN", refusal.text);
    return entry;
  }

  /** Whether a key with this value exists (for management paths, which refuse every API key). */
  knows(publicApiKey: string): boolean {
    return this.#lookup(publicApiKey) !== undefined;
  }
}
