import type { ExternalChanges } from "./externalChanges.ts";

/**
 * Rows kept in memory for hot read paths. Whoever writes a cached row through this process
 * deletes its entry; when another process has written the database, everything is dropped
 * (see ExternalChanges), so a change is visible on the very next request whoever made it.
 * Entries are bounded; the least recently loaded go first.
 */
export class ReadThroughCache<V> {
  readonly #changes: ExternalChanges;
  readonly #entries = new Map<string, V>();
  readonly #capacity: number;
  #generation: number;

  constructor(changes: ExternalChanges, capacity: number) {
    this.#changes = changes;
    this.#capacity = capacity;
    this.#generation = changes.generation();
  }

  /** The cached value, or the loaded one (kept when it exists). */
  get(key: string, load: () => V | undefined): V | undefined {
    const generation = this.#changes.generation();
    if (generation !== this.#generation) {
      this.#entries.clear();
      this.#generation = generation;
    }
    const cached = this.#entries.get(key);
    if (cached !== undefined) return cached;
    const loaded = load();
    if (loaded === undefined) return undefined;
    this.#entries.set(key, loaded);
    if (this.#entries.size > this.#capacity)
      this.#entries.delete(this.#entries.keys().next().value as string);
    return loaded;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
