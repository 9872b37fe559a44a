import type { CapturedPinDto, PinStateDto } from "../../../shared/tfa.ts";

/** What the PIN inbox is told, with the account the PIN belongs to (for scoping subscribers). */
export type PinEvent =
  | { type: "captured"; accountId: number; pin: CapturedPinDto }
  | { type: "state"; accountId: number; state: PinStateDto };

export type PinEventListener = (event: PinEvent) => void;

/** In-process fan-out of captured messages and PIN state changes to the open event streams. */
export class PinEvents {
  readonly #listeners = new Set<PinEventListener>();

  /** Adds a listener; the function returned removes it. */
  subscribe(listener: PinEventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** Tells every listener; one failing listener neither stops the others nor the caller. */
  emit(event: PinEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure (a closed stream) is its own business.
      }
    }
  }
}
