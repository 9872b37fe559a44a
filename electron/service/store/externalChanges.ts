import type { Db } from "./database.ts";

/**
 * Tells in-memory caches whether another connection (another process on the same database)
 * has committed since they last looked. PRAGMA data_version is read at most once per turn of
 * the event loop, however many caches and requests ask in that turn.
 */
export class ExternalChanges {
  readonly #dataVersion;
  #version: number;
  #generation = 0;
  #checkedThisTurn = false;

  constructor(db: Db) {
    this.#dataVersion = db.prepare("PRAGMA data_version").pluck();
    this.#version = this.#dataVersion.get() as number;
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
