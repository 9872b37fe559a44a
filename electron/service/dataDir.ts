import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DataKeyError, decodeDataKey, loadOrCreateKeyFile } from "./crypto/dataKey.ts";
import { createSecretBox, type SecretBox } from "./crypto/secretBox.ts";
import type { KeyWriteJournal } from "./domain/keyWriteJournal.ts";
import { storageFailure } from "./http/errorReplies.ts";
import { inThreadLister } from "./keyListing.ts";
import type { ServiceStorage } from "./serviceStorage.ts";
import { AccountStore } from "./store/accountStore.ts";
import { ApiKeyStore } from "./store/apiKeyStore.ts";
import { AuditStore } from "./store/auditStore.ts";
import { type Db, openDatabase, readMeta, writeMeta } from "./store/database.ts";
import { ExternalChanges } from "./store/externalChanges.ts";
import { GroupCommit } from "./store/groupCommit.ts";
import { KEY_CHECK } from "./store/sealedColumns.ts";
import { upgradeSealedValues } from "./store/sqliteReseal.ts";
import { SqliteStore } from "./store/sqliteStore.ts";
import type { Store } from "./store/store.ts";
import { workerLister } from "./workerLister.ts";

export const DATABASE_FILE = "keydesk.db";
export const DATA_KEY_FILE = "data.key";
export { KEY_CHECK } from "./store/sealedColumns.ts";

export interface DataDirOptions {
  dataDir: string;
  /** The data key itself (the desktop app takes it from the OS keychain). */
  dataKey?: Buffer;
  /** Base64 data key from the environment (KEY_SERVICE_DATA_KEY); used when no dataKey is given. */
  dataKeyBase64?: string;
  /** Files up to this many MiB get SQLite's quick check when opened (see databaseHealth.ts). */
  startCheckMaxMb?: number;
}

export interface DataDir extends ServiceStorage {
  /**
   * What the service keeps, behind the async store interface (store/README.md). Callers not yet
   * converted (2FA, the key lists, tests and benches that set rows up) still use the synchronous
   * stores below.
   */
  readonly store: Store;
  readonly db: Db;
  /** The database file (a reader of its own, such as the key list worker, opens it too). */
  readonly databaseFile: string;
  /** The data key, for a reader of its own (the key list worker); never written anywhere by the service. */
  readonly dataKey: Buffer;
  readonly box: SecretBox;
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  /** Writes answered to clients go through here: one durable commit per group of concurrent writes. */
  readonly writes: GroupCommit;
  /** Whether another process wrote the database: in-memory caches check it. */
  readonly externalChanges: ExternalChanges;
  /** Told of every key the API creates or updates, inside the write's own transaction (the sync outbox). */
  readonly keyJournals: Set<KeyWriteJournal>;
  close(): void;
}

/** Opens the service's data directory: database, data key (checked against the database), stores. */
export function openDataDir(options: DataDirOptions): DataDir {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const databaseFile = join(options.dataDir, DATABASE_FILE);
  const db = openDatabase(databaseFile, {
    ...(options.startCheckMaxMb !== undefined && { startCheckMaxMb: options.startCheckMaxMb }),
  });
  try {
    const storedCheck = readMeta(db, KEY_CHECK);
    const keyPath = join(options.dataDir, DATA_KEY_FILE);
    let origin = `the data key file ${keyPath}`;
    let dataKey: Buffer;
    if (options.dataKey) {
      origin = "the data key given by the application";
      dataKey = options.dataKey;
    } else if (options.dataKeyBase64 !== undefined) {
      origin = "KEY_SERVICE_DATA_KEY";
      dataKey = decodeDataKey(options.dataKeyBase64, origin);
    } else {
      dataKey = loadOrCreateKeyFile(keyPath, storedCheck === undefined);
    }
    const box = createSecretBox(dataKey);
    if (storedCheck === undefined) {
      writeMeta(db, KEY_CHECK, box.checkValue);
    } else if (storedCheck !== box.checkValue) {
      throw new DataKeyError(
        `${origin} is not the data key this database was created with; ` +
          "use the original key (its publicApiKey values cannot be read with another one)",
      );
    }
    // Values an earlier Keydesk sealed with AES-256-GCM, once (the schema upgrade kept a copy).
    upgradeSealedValues(db, dataKey, box);
    const parts = {
      db,
      box,
      accounts: new AccountStore(db),
      apiKeys: new ApiKeyStore(db, box),
      audit: new AuditStore(db),
      writes: new GroupCommit(db),
      externalChanges: new ExternalChanges(db),
    };
    return {
      ...parts,
      store: new SqliteStore(parts),
      databaseFile,
      dataKey,
      keyJournals: new Set(),
      keyLister: (worker) =>
        worker ? workerLister(worker, { databaseFile, dataKey }) : inThreadLister(parts.apiKeys),
      failure: (error) => storageFailure(error, databaseFile),
      close: () => db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
