import { formatApiDateTime } from "../../../shared/datetime.ts";
import type { RefusalReason } from "../domain/keyAuthorization.ts";
import {
  addCounts,
  countCall,
  dayStartHour,
  emptyPending,
  hourOf,
  type KeyUsage,
  type PendingUsage,
} from "../domain/keyUsage.ts";
import { addHourCounts, type UsageSeries, usageSeriesOf } from "../domain/keyUsageSeries.ts";
import type { Store } from "../store/store.ts";

/**
 * Counts App-authorized calls per key in memory and writes them to the database in one
 * transaction per interval (1 s by default), never on the request's path: a call costs a map
 * lookup and a few increments. A crash loses at most the calls of the last interval; a clean stop
 * writes them (close()). Reads add what is still in memory to what is stored, so they are exact.
 */

export interface UsageRecorderOptions {
  intervalMs?: number;
  now?: () => number;
  /** Told when a batch could not be written (it is kept and tried again with the next one). */
  onError?: (error: unknown) => void;
}

export class UsageRecorder {
  readonly #store: Store;
  readonly #now: () => number;
  readonly #onError: (error: unknown) => void;
  /** Calls not yet written, by key id and then hour (a batch that spans an hour keeps both). */
  #pending = new Map<string, PendingUsage>();
  /** Batches a write failed for (the disk was full, the database busy): written before the next. */
  readonly #unwritten: Map<string, PendingUsage>[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** The flush writing now: one at a time, so a batch is never written twice. */
  #flushing: Promise<void> | undefined;

  constructor(store: Store, options: UsageRecorderOptions = {}) {
    this.#store = store;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => {});
    this.#timer = setInterval(() => void this.flush(), options.intervalMs ?? 1_000);
    this.#timer.unref();
  }

  /** One App-authorized call of the key `key`: allowed, or refused by a rule. */
  record(key: string, outcome: RefusalReason | "allowed", now: number, address: string): void {
    const hour = hourOf(now);
    let pending = this.#pending.get(key);
    if (pending === undefined || pending.hour !== hour) {
      // A new hour: the last one's counts go to the database first, so each batch is one hour.
      if (pending !== undefined) void this.flush();
      pending = emptyPending(hour);
      this.#pending.set(key, pending);
    }
    countCall(pending, outcome, now, address);
  }

  /**
   * Writes what is pending; resolves once it is committed, or once a failure was reported
   * (never rejects): a batch that could not be written is kept and written first next time.
   * What was pending is set aside at once, so calls counted meanwhile go to the next batch.
   */
  flush(): Promise<void> {
    if (this.#pending.size > 0) {
      this.#unwritten.push(this.#pending);
      this.#pending = new Map();
    }
    const flushing = (this.#flushing ?? Promise.resolve()).then(() => this.#writeUnwritten());
    this.#flushing = flushing;
    void flushing.finally(() => {
      if (this.#flushing === flushing) this.#flushing = undefined;
    });
    return flushing;
  }

  async #writeUnwritten(): Promise<void> {
    while (this.#unwritten.length > 0) {
      const batch = this.#unwritten[0] as Map<string, PendingUsage>;
      try {
        await this.#store.write((tx) => tx.usage.write(batch, this.#now()));
      } catch (error) {
        this.#onError(error);
        return;
      }
      this.#unwritten.shift();
    }
  }

  /** The key's usage: what is stored plus what is still in memory. */
  async usageOf(key: string, apiKeyId: number): Promise<KeyUsage> {
    const now = this.#now();
    const stored = await this.#store.usage.read(apiKeyId, now);
    let usage = {
      total: stored.total,
      last24Hours: stored.last24Hours,
      lastUsedAt: stored.lastUsedAt,
      lastUsedFrom: stored.lastUsedFrom,
      lastRefusedAt: stored.lastRefusedAt,
      lastRefusedFrom: stored.lastRefusedFrom,
    };
    const dayStart = dayStartHour(now);
    for (const batch of [...this.#unwritten, this.#pending]) {
      const pending = batch.get(key);
      if (pending === undefined) continue;
      usage = {
        total: addCounts(usage.total, pending),
        last24Hours: pending.hour > dayStart ? addCounts(usage.last24Hours, pending) : usage.last24Hours,
        ...(pending.lastUsedAt !== null
          ? { lastUsedAt: pending.lastUsedAt, lastUsedFrom: pending.lastUsedFrom }
          : { lastUsedAt: usage.lastUsedAt, lastUsedFrom: usage.lastUsedFrom }),
        ...(pending.lastRefusedAt !== null
          ? { lastRefusedAt: pending.lastRefusedAt, lastRefusedFrom: pending.lastRefusedFrom }
          : { lastRefusedAt: usage.lastRefusedAt, lastRefusedFrom: usage.lastRefusedFrom }),
      };
    }
    const time = (at: number | null) => (at === null ? null : formatApiDateTime(at));
    return { ...usage, lastUsedAt: time(usage.lastUsedAt), lastRefusedAt: time(usage.lastRefusedAt) };
  }

  /**
   * The key's usage by hour and by day (domain/keyUsageSeries.ts): what is stored plus what is
   * still in memory, so a call just made is in its hour at once.
   */
  async seriesOf(key: string, apiKeyId: number): Promise<UsageSeries> {
    const now = this.#now();
    const byTime = await this.#store.usage.series(apiKeyId, now);
    for (const batch of [...this.#unwritten, this.#pending]) {
      const pending = batch.get(key);
      if (pending !== undefined) addHourCounts(byTime, pending.hour, pending);
    }
    return usageSeriesOf(byTime, now);
  }

  /** Stops the timer and writes what is pending. */
  close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    return this.flush();
  }
}
