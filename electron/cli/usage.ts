// What `key-service` says it takes: kept apart from the commands, so that `--help` and a usage
// error load nothing else, and each command loads only its own modules (keyServiceCli.ts).

const STORAGE_USAGE = "[--data-dir DIR | --database-url postgres://… [--data-key-file FILE]]";

const SYNC_SERVE_USAGE =
  "[--sync-remote-allow URL]... [--sync-max-answer-mb 256] [--sync-request-timeout 10]";

export const SERVE_USAGE =
  `key-service serve [--host 127.0.0.1] [--port 8787] ${STORAGE_USAGE} [--log-level info] [--trusted-proxy ADDR]... ` +
  `[--request-timeout SECONDS] [--max-connections N] [--usage on|off] [--start-check-max-mb N] [--audit-retention DAYS] ` +
  `${SYNC_SERVE_USAGE} [--metrics] [--metrics-allow ADDR|CIDR,...]...`;

// The account commands take the same storage options as serve: a database URL needs its data key.
export const ACCOUNT_USAGE = [
  `key-service account add ${STORAGE_USAGE} --username NAME [--parent PARENT_USERNAME]   (password from KEY_SERVICE_PASSWORD)`,
  `key-service account list ${STORAGE_USAGE} [--json]`,
  `key-service account passwd ${STORAGE_USAGE} --username NAME   (new password from KEY_SERVICE_PASSWORD)`,
].join("\n");

export const BACKUP_USAGE = [
  "key-service backup [--data-dir DIR] --out FILE [--priority idle|normal]   (passphrase from KEY_SERVICE_BACKUP_PASSPHRASE)",
  "key-service restore --in FILE [--data-dir DIR] [--force]   (passphrase from KEY_SERVICE_BACKUP_PASSPHRASE)",
].join("\n");

export const CHECK_USAGE =
  "key-service check [--data-dir DIR]   (SQLite's full integrity check, and the data key)";

export const KEYS_USAGE =
  "key-service keys export --data-dir DIR --account NAME [--format csv|json] [--with-public-api-key] [--out FILE]";

export const MIGRATE_USAGE =
  "key-service migrate --from-sqlite DIR --database-url URL   (or KEY_SERVICE_DATABASE_URL; stop serve on DIR first)";
