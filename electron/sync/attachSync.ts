import type { KeyServiceApp } from "../service/http/app.ts";
import { SyncEngine, type SyncEngineOptions } from "./syncEngine.ts";
import { registerSyncRoutes } from "./syncRoutes.ts";

/**
 * Adds sync with remote instances to a key service (an extension of buildHttpApp): the engine,
 * which runs the links in the background, and its routes under /local/1/sync. The service knows
 * nothing of sync; sync builds on the service.
 */
export function attachSync(service: KeyServiceApp, options: SyncEngineOptions = {}): SyncEngine {
  const { app, metrics } = service;
  const sync = new SyncEngine(service.data, {
    onRun: (link, outcome) => {
      app.log[outcome.ok ? "info" : "warn"](
        { syncLink: link.id, remote: link.remoteBaseUrl },
        `sync: ${outcome.text}`,
      );
      metrics?.syncRun(outcome);
    },
    ...options,
  });
  // Before the server listens (so before any request writes a key): the outbox journal is
  // registered and the links are read; a store that cannot read them fails the start.
  app.addHook("onReady", () => sync.start());
  // Before the server waits for requests in flight: a "sync now" waiting on a slow remote ends now.
  app.addHook("preClose", async () => {
    await sync.close();
  });
  registerSyncRoutes(app, sync, service.keys, service.requireBasic);
  return sync;
}
