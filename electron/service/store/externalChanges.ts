import type { Db } from "./database.ts";
import type { ChangeFeed } from "./store.ts";

/**
 * Tells in-memory caches whether another connection (another process on the same database)
 * has committed since they last looked. PRAGMA data_version is read at most once per turn of
 * the event loop, however many caches and requests ask in that turn.
 */
export class ExternalChanges implements ChangeFeed {
  readonly #dataVersion;
  #version: number;
  #generation = 0;
  #checkedThisTurn = false;

  constructor(db: Db) {
    this.#dataVersion = db.prepare("PRAGMA data_version").pluck();
    this.#version = this.#dataVersion.get() as number;
  }

  // Another process's commit is seen only as a whole (the generation); this process's key writes
  // reach caches through `apiKeys.onChange`. So no row is ever named here.
  onKeyChange(): () => void {
    return () => {};
  }

  onAccountChange(): () => void {
    return () => {};
  }

  onPinChange(): () => void {
    return () => {};
  }

  /** A number that changes whenever another connection has committed. */
  generation(): number {
    if (!this.#checkedThisTurn) {
      this.#checkedThisTurn = true;
      setImmediate(() => {
        this.#checkedThisTurn = false;
      });
      const version = this.#dataVersion.get() as number;
      if (version !== this.#version) {
        this.#version = version;
        this.#generation++;
      }
    }
    return this.#generation;
  }
}
