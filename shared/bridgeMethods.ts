import type { BridgeArgs, BridgeEvent, BridgeMethod, BridgeResult, KeydeskBridge } from "./bridge.ts";

/**
 * The zod-free half of the bridge contract: method names, channels and the builder of a
 * `KeydeskBridge` from a transport. The Electron preload bundles this file (a sandboxed preload
 * can require nothing but `electron`), so it must only ever import types. shared/bridge.ts
 * re-exports everything here.
 */

// Record<BridgeMethod, true>: the compiler rejects a missing or an unknown method name, so this
// list always matches the argument schemas of shared/bridge.ts (same order).
const methodSet: Record<BridgeMethod, true> = {
  "keys.page": true,
  "keys.count": true,
  "keys.get": true,
  "keys.lookup": true,
  "keys.lookupElsewhere": true,
  "keys.findByFragment": true,
  "keys.create": true,
  "keys.createTfa": true,
  "keys.update": true,
  "keys.setEnabled": true,
  "keys.revealPublicApiKey": true,
  "keys.roll": true,
  "keys.retire": true,
  "keys.bulkSetEnabled": true,
  "keys.export": true,
  "keys.history": true,
  "keys.usageSeries": true,
  "accounts.list": true,
  "accounts.addSubAccount": true,
  "profiles.list": true,
  "profiles.add": true,
  "profiles.edit": true,
  "profiles.remove": true,
  "profiles.test": true,
  "profiles.activate": true,
  "profiles.revealLocalCredentials": true,
  "profiles.checkActive": true,
  "service.status": true,
  "pins.list": true,
  "clipboard.copyPublicApiKey": true,
  "settings.get": true,
  "settings.update": true,
  "notifications.show": true,
  "sync.links.list": true,
  "sync.links.create": true,
  "sync.links.update": true,
  "sync.links.remove": true,
  "sync.run": true,
  "sync.keys": true,
  "sync.resolve": true,
  "sync.outbox": true,
  "sync.outbox.discard": true,
  "sync.outbox.retry": true,
  "sync.localOnly": true,
  "sync.localOnly.push": true,
  "sync.localAccounts": true,
  "sync.remoteAccounts": true,
  // ---- 2FA applications and message templates ----
  "tfa.applications.list": true,
  "tfa.applications.create": true,
  "tfa.applications.update": true,
  "tfa.templates.list": true,
  "tfa.templates.create": true,
  "tfa.templates.update": true,
  // ---- backup and restore ----
  "backup.create": true,
  "backup.inspect": true,
  "backup.restore": true,
  "backup.auto.status": true,
  "backup.auto.configure": true,
};

export const BRIDGE_METHODS = Object.keys(methodSet) as BridgeMethod[];

/** Whether `name` is one of the bridge's methods (for transports that receive names as text). */
export function isBridgeMethod(name: string): name is BridgeMethod {
  return Object.hasOwn(methodSet, name);
}

/** The IPC channel of a method (one channel per method: no generic pass-through). */
export const channelOf = (method: BridgeMethod): string => `keydesk:${method}`;
export const EVENT_CHANNEL = "keydesk:event";

/** What a transport provides: one call per method, and a subscription to main's events. */
export interface BridgeTransport {
  call(method: BridgeMethod, args: unknown): Promise<BridgeResult<unknown>>;
  subscribe(listener: (event: BridgeEvent) => void): () => void;
}

/**
 * A `KeydeskBridge` with exactly one function per method of the contract plus `onEvent`,
 * nothing else (no generic invoke).
 */
export function buildKeydeskBridge(transport: BridgeTransport): KeydeskBridge {
  const bridge: Record<string, unknown> = {};
  for (const method of BRIDGE_METHODS) {
    bridge[method] = (args: BridgeArgs<typeof method>) => transport.call(method, args);
  }
  bridge.onEvent = (listener: (event: BridgeEvent) => void) => transport.subscribe(listener);
  return bridge as KeydeskBridge;
}
