import type { Db } from "./database.ts";

interface Job {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit: writes submitted during one turn of the event loop run in one transaction,
 * each inside its own savepoint, and every caller is answered only after that transaction
 * committed. With `synchronous = FULL` the fsync then costs once per group instead of once
 * per write, and "answered" still means "on disk". A write that throws rolls back alone.
 */
export class GroupCommit {
  readonly #db: Db;
  #pending: Job[] = [];

  constructor(db: Db) {
    this.#db = db;
  }

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.#pending.length === 1) setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    const jobs = this.#pending;
    this.#pending = [];
    const outcomes: Outcome[] = [];
    try {
      this.#db
        .transaction(() => {
          for (const job of jobs) {
            try {
              // A transaction inside a transaction is a savepoint in better-sqlite3.
              outcomes.push({ ok: true, value: this.#db.transaction(job.work)() });
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, index) => {
      const outcome = outcomes[index] as Outcome;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}
