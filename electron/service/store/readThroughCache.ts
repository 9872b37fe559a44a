import type { CacheLookups, ChangeFeed } from "./store.ts";

/**
 * Rows kept in memory for hot read paths. Whoever writes a cached row through this process
 * deletes its entry, and so do the change feed's listeners for a row another replica changed;
 * when the feed's generation moves (another process wrote SQLite, PostgreSQL's LISTEN connection
 * dropped), everything is dropped, so a change is visible on the very next request whoever made it.
 * Entries are bounded; the least recently loaded go first.
 */
/** Bounds on what a cache keeps. */
export interface CacheLimits {
  /** Entries kept at most; the least recently loaded go first. */
  capacity: number;
  /**
   * How long an entry is answered at most, for rows that may change without the change feed
   * hearing it; `peek` answers an older entry as a miss. None: kept until deleted or evicted.
   */
  maxAgeMs?: number;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  loadedAt: number;
}

export class ReadThroughCache<V> {
  readonly #changes: ChangeFeed;
  readonly #entries = new Map<string, Entry<V>>();
  readonly #capacity: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #generation: number;
  /** Moves with every delete: a load that started before one does not keep what it read. */
  #deletes = 0;
  readonly #lookups: CacheLookups;

  /** `lookups`: counted at every lookup (the service's metrics read them); a private count otherwise. */
  constructor(changes: ChangeFeed, limits: CacheLimits, lookups: CacheLookups = { hits: 0, misses: 0 }) {
    this.#changes = changes;
    this.#capacity = limits.capacity;
    this.#maxAgeMs = limits.maxAgeMs ?? Number.POSITIVE_INFINITY;
    this.#now = limits.now ?? Date.now;
    this.#generation = changes.generation();
    this.#lookups = lookups;
  }

  /** The cached value, or the loaded one (kept when it exists). */
  get(key: string, load: () => V | undefined): V | undefined {
    const cached = this.peek(key);
    if (cached !== undefined) return cached;
    const loadedAt = this.#now();
    const loaded = load();
    if (loaded !== undefined) this.#keep(key, loaded, loadedAt);
    return loaded;
  }

  /** The cached value, without loading: the synchronous hit path of an asynchronous store. */
  peek(key: string): V | undefined {
    const generation = this.#changes.generation();
    if (generation !== this.#generation) {
      this.#entries.clear();
      this.#generation = generation;
    }
    const entry = this.#entries.get(key);
    if (entry === undefined || this.#now() - entry.loadedAt >= this.#maxAgeMs) {
      this.#lookups.misses++;
      return undefined;
    }
    this.#lookups.hits++;
    return entry.value;
  }

  /**
   * Loads a value `peek` did not find. It is kept only when nothing was dropped while it loaded
   * (no delete, no generation): otherwise it may be what the database held before that change.
   */
  async load(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const generation = this.#generation;
    const deletes = this.#deletes;
    const loadedAt = this.#now();
    const loaded = await load();
    if (
      loaded !== undefined &&
      deletes === this.#deletes &&
      generation === this.#generation &&
      generation === this.#changes.generation()
    ) {
      this.#keep(key, loaded, loadedAt);
    }
    return loaded;
  }

  /** `loadedAt` is when the load began: the row may be that old. */
  #keep(key: string, value: V, loadedAt: number): void {
    // Re-inserted so that eviction order is load order.
    this.#entries.delete(key);
    this.#entries.set(key, { value, loadedAt });
    if (this.#entries.size > this.#capacity)
      this.#entries.delete(this.#entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.#deletes++;
    this.#entries.delete(key);
  }

  /** Deletes every entry whose value `matches` (a row many entries were loaded with changed). */
  deleteWhere(matches: (value: V) => boolean): void {
    this.#deletes++;
    for (const [key, entry] of this.#entries) if (matches(entry.value)) this.#entries.delete(key);
  }
}
