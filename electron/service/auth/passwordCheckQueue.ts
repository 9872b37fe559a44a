import { availableParallelism } from "node:os";

/**
 * A global bound on password-KDF work. scrypt runs on libuv's thread pool, whose queue is
 * unbounded and first-come-first-served: a flood of wrong guesses from many addresses, each
 * within its own per-address allowance, used to push an innocent first sign-in minutes back.
 * Here at most `concurrency` checks run and at most `maxWaiting` wait; the rest are refused at
 * once (429 with Retry-After) instead of piling up.
 *
 * Who waits is decided by the caller's standing: the password attempts its address has left
 * (see FailureThrottle.remaining). The address that guessed least recently is served first and
 * displaces the one that guessed most when the queue is full, so flooding addresses mostly push
 * each other out, while a first sign-in from a fresh address goes ahead of all of them.
 */

export interface PasswordCheckOptions {
  /** Checks running at once. */
  concurrency: number;
  /** Checks waiting at most, all addresses together. */
  maxWaiting: number;
}

/** Thrown by `run` when a check was refused or displaced: the queue was full of better-placed ones. */
export class PasswordChecksBusy extends Error {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super(`password checks are busy; try again in ${retryAfterSeconds} s`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

interface Waiting {
  address: string;
  /** Arrival order: among equal standing, first come first served. */
  seq: number;
  start: () => void;
  refuse: (error: PasswordChecksBusy) => void;
}

/**
 * One below the core count, so the event loop keeps a core for every other request (App-key
 * authorizations, refusals, verified credentials) while password checks run; and one below the
 * thread pool's size (UV_THREADPOOL_SIZE, 4 by default), so file I/O keeps a thread. At least one.
 */
function defaultConcurrency(): number {
  const threadPool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return Math.max(1, Math.min(availableParallelism() - 1, threadPool - 1));
}

export class PasswordCheckQueue {
  readonly #options: PasswordCheckOptions;
  readonly #standing: (address: string) => number;
  readonly #waiting: Waiting[] = [];
  #running = 0;
  #seq = 0;
  /** Moving average of one check's duration, for Retry-After. */
  #averageMs = 500;

  /** `standing`: higher is served first (the attempts the address has left). */
  constructor(standing: (address: string) => number, options: Partial<PasswordCheckOptions> = {}) {
    this.#standing = standing;
    const concurrency = options.concurrency ?? defaultConcurrency();
    // 16 checks per running slot: a burst of one address's whole allowance (10) still fits,
    // and the last one waiting is answered within seconds (a check is about 0.1–0.5 s).
    this.#options = { concurrency, maxWaiting: 16 * concurrency, ...options };
  }

  /** Runs `check` when its turn comes; rejects with PasswordChecksBusy when it gets none. */
  async run<T>(address: string, check: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#options.concurrency) await this.#wait(address);
    else this.#running += 1;
    const started = performance.now();
    try {
      return await check();
    } finally {
      this.#averageMs = 0.8 * this.#averageMs + 0.2 * (performance.now() - started);
      this.#next();
    }
  }

  #wait(address: string): Promise<void> {
    if (this.#waiting.length >= this.#options.maxWaiting) {
      const victim = this.#worst();
      if (!victim || this.#standing(victim.address) >= this.#standing(address)) {
        throw new PasswordChecksBusy(this.#retryAfter());
      }
      this.#waiting.splice(this.#waiting.indexOf(victim), 1);
      victim.refuse(new PasswordChecksBusy(this.#retryAfter()));
    }
    return new Promise((start, refuse) => {
      this.#waiting.push({ address, seq: this.#seq++, start, refuse });
    });
  }

  /** Hands the finished check's slot to the best-placed waiting one, or frees it. */
  #next(): void {
    const best = this.#best();
    if (!best) {
      this.#running -= 1;
      return;
    }
    this.#waiting.splice(this.#waiting.indexOf(best), 1);
    best.start();
  }

  /** Highest standing, oldest first. Standing is read now: it falls as an address keeps guessing. */
  #best(): Waiting | undefined {
    let best: Waiting | undefined;
    let bestStanding = Number.NEGATIVE_INFINITY;
    for (const entry of this.#waiting) {
      const standing = this.#standing(entry.address);
      if (standing > bestStanding || (standing === bestStanding && best && entry.seq < best.seq)) {
        best = entry;
        bestStanding = standing;
      }
    }
    return best;
  }

  /** Lowest standing, newest first: the one displaced when the queue is full. */
  #worst(): Waiting | undefined {
    let worst: Waiting | undefined;
    let worstStanding = Number.POSITIVE_INFINITY;
    for (const entry of this.#waiting) {
      const standing = this.#standing(entry.address);
      if (standing < worstStanding || (standing === worstStanding && worst && entry.seq > worst.seq)) {
        worst = entry;
        worstStanding = standing;
      }
    }
    return worst;
  }

  /** Roughly when the queue ahead would have drained. */
  #retryAfter(): number {
    const rounds = this.#waiting.length / this.#options.concurrency + 1;
    return Math.max(1, Math.ceil((rounds * this.#averageMs) / 1000));
  }
}
