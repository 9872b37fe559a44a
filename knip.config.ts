import type { KnipConfig } from "knip";

/**
 * What knip (run by `npm run lint`) counts as used: every file, export, type and dependency must
 * be reached from an entry point below, or from the scripts of package.json (knip reads those:
 * `key-service`, `web`, `start`'s launch.ts, `bench`'s run.ts, `test:postgres`'s harness), or from
 * the configs of the tools it knows (electron-vite, Biome, dependency-cruiser).
 */
const config: KnipConfig = {
  entry: [
    // electron.vite.config.ts's inputs: the main process, its key-list worker thread, the preload,
    // and the renderer (index.html loads src/main.tsx).
    // A `!` marks what ships: `knip --production` (also run by lint) reads only those, so an export
    // that only a test uses is reported there.
    "electron/main/index.ts!",
    "electron/service/keyListWorker.ts!",
    "electron/preload/index.ts!",
    "renderer/src/main.tsx!",
    // What package.json's scripts run: the headless service (`key-service`), the UI in a browser
    // (`web`), the check of the postinstall. The production run reads no script but `start`.
    "electron/cli/key-service.ts!",
    "electron/web/browserHost.ts!",
    "electron/vault/keytarInstallCheck.mjs!",
    // The benchmarks (bench/run.ts runs them) and the processes they start by path.
    "bench/*.bench.ts",
    "bench/lib/listLoop.ts",
    "bench/lib/probeLoop.ts",
    "bench/plainJsonServer.ts",
    // The tests, and the Electron stand-in, which Node loads by path through module hooks rather
    // than through an import (the harness modules named by package.json's scripts, --import and
    // --test-global-setup, knip finds there). The rest of test/harness is reached from the tests,
    // so its unused exports are reported too.
    "test/**/*.test.ts",
    "test/harness/electronStandIn/**/*.ts",
    "test/fixtures/*/make.mjs",
    // CI's checks.
    ".ci/*.mjs",
  ],
  // What ships is marked `!` (the production run reads only it); the tests, benchmarks and tool
  // configs are checked by the default run. The two sets must not overlap: a pattern without `!`
  // is left out of the production run, whatever it also matches.
  project: [
    "{.ci,bench,test}/**/*.{ts,tsx,mjs,cjs}",
    "*.{ts,mjs,cjs}",
    ".*.{mjs,cjs}",
    "{electron,renderer,shared}/**/*.{ts,tsx,mjs,cjs}!",
  ],
  // Spelled out though it is the default: an export that only its own module uses is reported too
  // (drop its `export`); a test's import counts as a use, the tests being entries. `npm run lint`
  // also runs `knip --production`, where it does not: an export only tests import says `@internal`.
  ignoreExportsUsedInFile: false,
  // Programs of the OS, not npm packages: util-linux's chrt (threadPriority.ts), PostgreSQL's
  // pg_config (test/harness/postgres.ts), coreutils' mkfifo (a backup restore test).
  ignoreBinaries: ["chrt", "pg_config", "mkfifo"],
  // builderConfig.test.ts reads app-builder-lib's JSON schema through electron-builder's own
  // resolution: the schema of the version electron-builder runs, not a dependency of ours.
  ignoreDependencies: ["app-builder-lib"],
};

export default config;
