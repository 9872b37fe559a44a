import type { ServerResponse } from "node:http";

/**
 * How much a stream may hold unsent for one client, beyond what the kernel's socket buffers already
 * hold. A PIN event is about 0.3–4.5 KiB, so this is hundreds of events a client has not taken:
 * it is not reading (paused, hung, or on a link far slower than the event rate). Buffering on its
 * behalf would grow without limit (1,000 idle clients and 3,000 PINs held +700 MB), so the service
 * disconnects it instead; an event stream has no replay, so a client that reconnects reads the list
 * for what it missed, exactly as after any other disconnect.
 */
export const MAX_UNSENT_BYTES = 256 * 1024;

/**
 * Writes `chunk` unless the client is not keeping up: once more than `maxUnsent` bytes wait in
 * user space for its socket, the response is destroyed (its `close` event then releases the
 * subscription) and false is answered. Node's `write` never refuses data, so the bound is ours.
 */
export function writeOrDisconnect(
  response: ServerResponse,
  chunk: string,
  maxUnsent = MAX_UNSENT_BYTES,
): boolean {
  if (response.destroyed || response.writableEnded) return false;
  // `write` answers false past the 16 KiB high-water mark; only then is the backlog worth measuring.
  if (response.write(chunk) || response.writableLength <= maxUnsent) return true;
  response.destroy();
  return false;
}
