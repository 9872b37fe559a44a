/**
 * What must never import what (`npm run lint` runs this; a violation fails it). Each rule keeps a
 * boundary that the code's layout promises and that nothing else checks; the tests in
 * test/unit/dependencyRules.test.ts add a file that breaks each rule and see it fail.
 */

/**
 * The SQLite store: the modules that hold a SQLite connection (they import `database.ts` or
 * `better-sqlite3`). Named so, not found by what they import, so a PostgreSQL module cannot reach
 * one by accident: `database.ts` and its helpers, `sqlite*.ts`, and the `<name>Store.ts` classes
 * (`store.ts`, the interface both databases implement, is not one; the dialect-free rows and codecs
 * the two databases share are `<name>Rows.ts`).
 */
const SQLITE_STORE =
  "^electron/service/store/(database|databaseHealth|externalChanges|groupCommit|sqlite[A-Za-z]*|[a-z][A-Za-z]*Store)[.]ts$";

/**
 * Who may open SQLite (import the driver): the SQLite store; and outside it, each for its reason.
 * The tools that handle the data directory's database as a file (backup and restore, `check`, the
 * desktop app's restore dialog) go through the store's `sqliteFile.ts`.
 */
const SQLITE_DRIVER_USERS = [
  SQLITE_STORE,
  // The data directory's single-writer claim: an OS file lock taken through SQLite's own locks on a
  // file of its own (keydesk.lock), which holds no data, and a probe of the database file's locks
  // (it reads no table); it runs before the store opens anything.
  "^electron/service/dataDirClaim[.]ts$",
  // The list worker: a read-only connection of its own in a thread of its own, opened where the
  // thread starts (the per-key work is the store's ApiKeyStore).
  "^electron/service/keyListWorker[.]ts$",
  // Tests open databases to damage, age or inspect them.
  "^test/",
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "renderer-not-electron",
      comment:
        "The renderer runs in a sandboxed page: it reaches the main process only through the preload's " +
        "bridge (shared/ holds the bridge's types and schemas). Importing electron/ would bundle Node code " +
        "into the page or break the bridge's single door.",
      severity: "error",
      from: { path: "^renderer/" },
      to: { path: "^electron/" },
    },
    {
      name: "shared-not-electron-or-renderer",
      comment:
        "shared/ is what both sides agree on (types, zod schemas, pure rules); it depends on neither side, " +
        "or it would drag one side's code into the other.",
      severity: "error",
      from: { path: "^shared/" },
      to: { path: "^(electron|renderer)/" },
    },
    {
      name: "service-not-main",
      comment:
        "The key service runs without Electron (the CLI, a server, the tests): nothing in it may need the " +
        "desktop app's main process.",
      severity: "error",
      from: { path: "^electron/service/" },
      to: { path: "^electron/main/" },
    },
    {
      name: "store-not-http",
      comment:
        "The store keeps data and reports neutral failures; answering HTTP (status codes, error bodies, " +
        "routes) is the HTTP layer's job, which maps what the store reports.",
      severity: "error",
      from: { path: "^electron/service/store/" },
      to: { path: "^electron/service/http/" },
    },
    {
      name: "store-not-tfa",
      comment:
        "The store keeps the 2FA data; the rules over it (rate limits, PIN decisions, request shapes) are " +
        "tfa/'s, applied by its callers to what the store reads: a store that decided them would be a " +
        "second place to change a rule, once per database. The stored shapes are store.ts's.",
      severity: "error",
      from: { path: "^electron/service/store/" },
      to: { path: "^electron/service/tfa/" },
    },
    {
      name: "store-not-sign-in-rules",
      comment:
        "The store keeps the failed sign-in buckets as rows; the throttle's rules (burst, refill, refund) " +
        "are applied by auth/sharedFailureThrottle.ts, the same functions FailureThrottle uses in memory. " +
        "The store may name the bucket's type, never call the rules.",
      severity: "error",
      from: { path: "^electron/service/store/" },
      to: { path: "^electron/service/domain/failureBuckets[.]ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "postgres-not-sqlite",
      comment:
        "The PostgreSQL store shares only dialect-free code with SQLite's (store.ts, the <name>Rows.ts codecs): " +
        "a change to a SQLite class must not be able to change PostgreSQL's behaviour, and a PostgreSQL " +
        "deployment must not load the SQLite driver.",
      severity: "error",
      from: { path: "^electron/service/store/postgres/" },
      // Reachable: through any chain of imports too, so a shared helper cannot carry SQLite in.
      to: { path: [SQLITE_STORE, "(^|/)node_modules/better-sqlite3/"], reachable: true },
    },
    {
      name: "rows-only-in-store",
      comment:
        "A <name>Rows.ts module is how the store's rows look and are read (columns, 0/1 flags, JSON " +
        "columns, sealing): both stores share it, nothing else may lean on it. What the rest of the service " +
        "works with are the domain's types (domain/), which the store's interface (store.ts) answers.",
      severity: "error",
      from: {
        pathNot: [
          "^electron/service/store/",
          // The store's own tests read its constants and codecs (retention, purge batches, canonical JSON).
          "^test/(unit/electron/service/store|integration/service/store)/",
        ],
      },
      to: { path: "^electron/service/store/[a-z][A-Za-z]*Rows[.]ts$" },
    },
    {
      name: "sqlite-driver-only-where-sqlite-is-opened",
      comment:
        "SQL for SQLite lives in the SQLite store (store/README.md): anything else that opened the driver " +
        "would be a second place where SQLite's dialect and files are known. The few that must are listed.",
      severity: "error",
      from: { pathNot: SQLITE_DRIVER_USERS },
      to: { path: "(^|/)node_modules/better-sqlite3/" },
    },
    {
      name: "pg-only-in-postgres-store",
      comment:
        "PostgreSQL's SQL lives in store/postgres/; the service connects to it in one place " +
        "(postgresService.ts: the service's pool, also `migrate`'s), and the copy from SQLite " +
        "(store/sqliteToPostgres.ts) writes through a client of that pool. Anything else using the driver " +
        "would be a second place where PostgreSQL's dialect or connection settings are known.",
      severity: "error",
      from: {
        pathNot: [
          "^electron/service/store/postgres/",
          "^electron/service/store/sqliteToPostgres[.]ts$",
          "^electron/service/postgresService[.]ts$",
          // Tests and benchmarks run their own cluster and read what the store wrote.
          "^(test|bench)/",
        ],
      },
      to: { path: "(^|/)node_modules/(@types/)?pg/" },
    },
    {
      name: "no-circular",
      comment:
        "Modules that import each other (a type-only import too) cannot be read, tested or moved one at a " +
        "time: a change to either is a change to both. Shared shapes go to the module both import.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports are dependencies too: a type from a SQLite class ties its module to the class.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // Build output is not source; node_modules stays in (not followed) so imports of packages are seen.
    exclude: { path: "^(out|dist)/" },
  },
};
