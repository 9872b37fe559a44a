import type { Db } from "./database.ts";

interface Job {
  work: () => unknown;
  /** The work returns a promise (Store.write): it runs between savepoint statements of its own. */
  async: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit: writes submitted during one turn of the event loop run in one transaction,
 * each inside its own savepoint, and every caller is answered only after that transaction
 * committed. With `synchronous = FULL` the fsync then costs once per group instead of once
 * per write, and "answered" still means "on disk". A write that throws rolls back alone.
 *
 * A write is either synchronous (`run`) or asynchronous (`runAsync`, behind Store.write). An
 * asynchronous write awaits only the store, whose SQLite methods answer already-resolved
 * promises, so a group still takes one turn; the next group never starts before the last ended.
 */
export class GroupCommit {
  readonly #db: Db;
  #pending: Job[] = [];
  /** The group being written, when it holds an asynchronous write. */
  #flushing: Promise<void> | undefined;
  /** The statements around asynchronous writes, prepared when the first one comes. */
  #control: ReturnType<typeof controlStatements> | undefined;

  constructor(db: Db) {
    this.#db = db;
  }

  run<T>(work: () => T): Promise<T> {
    return this.#submit(work, false);
  }

  runAsync<T>(work: () => Promise<T>): Promise<T> {
    return this.#submit(work, true);
  }

  #submit<T>(work: () => unknown, async: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ work, async, resolve: resolve as (value: unknown) => void, reject });
      if (this.#pending.length === 1) setImmediate(() => this.#schedule());
    });
  }

  #schedule(): void {
    if (this.#flushing) {
      // Submitted while an asynchronous group was still running: they form the next group.
      this.#flushing.then(() => this.#schedule());
      return;
    }
    const jobs = this.#pending;
    this.#pending = [];
    if (jobs.length === 0) return;
    if (!jobs.some((job) => job.async)) {
      this.#flush(jobs);
      return;
    }
    this.#flushing = this.#flushAsync(jobs).finally(() => {
      this.#flushing = undefined;
    });
  }

  #flush(jobs: Job[]): void {
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
    answer(jobs, outcomes);
  }

  async #flushAsync(jobs: Job[]): Promise<void> {
    const outcomes: Outcome[] = [];
    let control: ReturnType<typeof controlStatements>;
    try {
      this.#control ??= controlStatements(this.#db);
      control = this.#control;
      control.begin.run();
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    try {
      for (const job of jobs) {
        if (!job.async) {
          try {
            outcomes.push({ ok: true, value: this.#db.transaction(job.work)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
          continue;
        }
        control.savepoint.run();
        try {
          const value = await job.work();
          control.release.run();
          outcomes.push({ ok: true, value });
        } catch (error) {
          control.rollbackTo.run();
          control.release.run();
          outcomes.push({ ok: false, error });
        }
      }
      control.commit.run();
    } catch (error) {
      if (this.#db.inTransaction) control.rollback.run();
      for (const job of jobs) job.reject(error);
      return;
    }
    answer(jobs, outcomes);
  }
}

function controlStatements(db: Db) {
  return {
    begin: db.prepare("BEGIN IMMEDIATE"),
    savepoint: db.prepare("SAVEPOINT group_commit_job"),
    release: db.prepare("RELEASE group_commit_job"),
    rollbackTo: db.prepare("ROLLBACK TO group_commit_job"),
    commit: db.prepare("COMMIT"),
    rollback: db.prepare("ROLLBACK"),
  };
}

function answer(jobs: readonly Job[], outcomes: readonly Outcome[]): void {
  jobs.forEach((job, index) => {
    const outcome = outcomes[index] as Outcome;
    if (outcome.ok) job.resolve(outcome.value);
    else job.reject(outcome.error);
  });
}
