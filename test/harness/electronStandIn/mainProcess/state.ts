import type { StandInSnapshot } from "../protocol.ts";

/**
 * What the stand-in `electron` records as the bundle uses it. One instance per child process:
 * the stand-in module and the control channel import this same module.
 */
export const recorded = {
  log: [] as string[],
  clipboardWrites: [] as string[],
  notificationsShown: [] as StandInSnapshot["notificationsShown"],
  sentToRenderer: [] as StandInSnapshot["sentToRenderer"],
};

export function log(entry: string): void {
  recorded.log.push(entry);
}

/** Electron's `Event`: listeners may call preventDefault() to refuse what it announces. */
class StandInEvent {
  #prevented = false;

  preventDefault(): void {
    this.#prevented = true;
  }

  get defaultPrevented(): boolean {
    return this.#prevented;
  }
}

export type ElectronEvent = StandInEvent;

export function electronEvent<T extends object>(fields: T): T & ElectronEvent {
  return Object.assign(new StandInEvent(), fields);
}

/** Windows not destroyed yet (the app's quit closes them). */
export const openWindows = new Set<{ close(): void }>();

/** How the stand-in's parts tell each other about the app's life cycle. */
export const lifecycle = {
  /** The last open window is gone: the app decides between "window-all-closed" and quitting. */
  allWindowsClosed: (): void => {},
  /**
   * The app has quit (after "quit") or called app.exit(): real Electron ends the process here.
   * The control channel replaces this to let the test look at the stopped app first.
   */
  ended: (exitCode: number): void => {
    process.exit(exitCode);
  },
};
