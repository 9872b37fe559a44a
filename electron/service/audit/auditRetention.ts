import { setImmediate as nextTurn } from "node:timers/promises";
import type { Store } from "../store/store.ts";

export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
export const AUDIT_RETENTION_RANGE = { min: 1, max: 36_500 };

const DAY_MS = 24 * 60 * 60 * 1000;
/** Entries deleted per statement: a large backlog never holds the database (or the event loop) for long. */
const BATCH = 1_000;
/**
 * Held by the replica pruning (`tx.tryLock`): the others skip their round.
 * @internal Exported for tests.
 */
export const AUDIT_RETENTION_LOCK = "audit-retention";

export interface AuditRetentionOptions {
  days: number;
  now?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * Deletes audit entries older than the retention: once at start, then once a day, in batches of
 * 1,000 with a turn of the event loop between them, each batch its own transaction. Replicas of
 * a shared database take turns: a batch whose lock another replica holds ends this pass.
 */
export class AuditRetention {
  readonly #store: Store;
  readonly #days: number;
  readonly #now: () => number;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;
  #closed = false;

  constructor(store: Store, options: AuditRetentionOptions) {
    this.#store = store;
    this.#days = options.days;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => {});
  }

  start(): void {
    void this.prune();
    this.#timer = setInterval(() => void this.prune(), DAY_MS);
    this.#timer.unref();
  }

  /** One pass (joined if one is running): answers how many entries it deleted. */
  prune(): Promise<number> {
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #pass(): Promise<number> {
    const before = this.#now() - this.#days * DAY_MS;
    let deleted = 0;
    try {
      for (;;) {
        if (this.#closed) return deleted;
        const count = await this.#store.write(async (tx) =>
          (await tx.tryLock(AUDIT_RETENTION_LOCK)) ? tx.audit.prune(before, BATCH) : undefined,
        );
        // Another replica of a shared database is pruning: this round is its own.
        if (count === undefined) return deleted;
        deleted += count;
        if (count < BATCH) return deleted;
        await nextTurn();
      }
    } catch (error) {
      // Busy or full: the entries stay until the next pass.
      this.#onError(error);
      return deleted;
    }
  }

  /** Stops the daily pass; a pass running ends before its next batch. Waits for it. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running;
  }
}
