import type { KeyWriteJournal } from "./domain/keyWriteJournal.ts";
import type { KeyLister } from "./keyListing.ts";
import type { Store } from "./store/store.ts";

/**
 * What the HTTP service needs of where its data lives, whichever store holds it: a SQLite data
 * directory (dataDir.ts) or a PostgreSQL database (postgresService.ts). Nothing here names a
 * database: the service speaks to the Store, lists keys through a KeyLister, and asks the storage
 * to put its own failures in words an admin can act on.
 */
export interface ServiceStorage {
  readonly store: Store;
  /** Told of every key the API creates or updates, inside the write's own transaction (the sync outbox). */
  readonly keyJournals: Set<KeyWriteJournal>;
  /**
   * The key lists' reader. `worker` is the list worker's module (SQLite reads lists in a thread of
   * its own when it is given, in steps on the service's thread when null); a store that reads
   * pages in its own process (PostgreSQL) ignores it.
   */
  keyLister(worker: URL | null | undefined): KeyLister;
  /**
   * A failure of the storage itself (its database damaged, full or out of reach) in words an admin
   * can act on, else undefined. Neutral: the HTTP layer answers it (app.ts: 503, retry later).
   */
  failure(error: unknown): string | undefined;
  /** Several processes serve this storage (PostgreSQL): limits kept per process are kept in the store. */
  readonly shared?: boolean;
  /** The connection pool (PostgreSQL's pg.Pool), read by the metrics when scraped; absent on SQLite. */
  readonly pool?: PoolCounts;
  close(): void | Promise<void>;
}

/** What a connection pool tells about its connections (pg.Pool's counts). */
export interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  /** Requests waiting for a connection. */
  readonly waitingCount: number;
  readonly options: { readonly max?: number | undefined };
}
