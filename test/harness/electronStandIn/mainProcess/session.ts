import { log } from "./state.ts";

type Handler = (...args: never[]) => unknown;

/** Electron's `session.webRequest`: one listener per event, the last one set wins (null removes it). */
class WebRequest {
  headersReceived: Handler | null = null;

  onHeadersReceived(filterOrListener: Handler | object | null, listener?: Handler | null): void {
    log("session.webRequest.onHeadersReceived");
    this.headersReceived =
      typeof filterOrListener === "function" ? (filterOrListener as Handler) : (listener ?? null);
  }
}

/** Electron's `Session`: the handlers that decide on permissions, and the web request hooks. */
export class Session {
  readonly partition: string;
  readonly webRequest = new WebRequest();
  permissionRequestHandler: Handler | null = null;
  permissionCheckHandler: Handler | null = null;
  devicePermissionHandler: Handler | null = null;

  constructor(partition: string) {
    this.partition = partition;
  }

  setPermissionRequestHandler(handler: Handler | null): void {
    log("session.setPermissionRequestHandler");
    this.permissionRequestHandler = handler;
  }

  setPermissionCheckHandler(handler: Handler | null): void {
    log("session.setPermissionCheckHandler");
    this.permissionCheckHandler = handler;
  }

  setDevicePermissionHandler(handler: Handler | null): void {
    log("session.setDevicePermissionHandler");
    this.devicePermissionHandler = handler;
  }
}

const sessions = new Map<string, Session>();

/** The session of a partition ("" or absent: the default session), made on first use. */
export function sessionFor(partition = ""): Session {
  let found = sessions.get(partition);
  if (!found) {
    found = new Session(partition);
    sessions.set(partition, found);
  }
  return found;
}

/** Electron's `session` module; a window's webPreferences.partition picks its session. */
export const session = {
  get defaultSession(): Session {
    return sessionFor();
  },
  fromPartition(partition: string): Session {
    log(`session.fromPartition ${partition}`);
    return sessionFor(partition);
  },
};
