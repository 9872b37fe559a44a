import { type ApiKeyWithExtrasDto, type KeyState, keyStateAt, validityOf } from "./apiKeyRules.ts";
import type { ApiKeyDto } from "./apiKeys.ts";

/**
 * The one writer of key exports (the desktop's Export button and `key-service keys export`).
 * Metadata only unless `withPublicApiKey`: the secret is then left out of every row, not blanked.
 *
 * CSV: RFC 4180 (CRLF line ends, fields quoted when they hold a comma, quote or line break, quotes
 * doubled), a header row, UTF-8 without a byte order mark. A cell a spreadsheet would take for a
 * formula (starting with = + - @, or a tab or carriage return) gets a leading apostrophe: a key's
 * name is anyone's text, and opening an export must not run it.
 * JSON: the API's list shape, `{"apiKeys":[...]}`, each key as the API answers it.
 */

export const EXPORT_FORMATS = ["csv", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  format: ExportFormat;
  withPublicApiKey: boolean;
}

/** A key's state in the words of the Keys table's State column (and of the CSV's state column). */
export const KEY_STATE_LABELS: Record<KeyState, string> = {
  enabled: "Enabled",
  disabled: "Disabled",
  "not-yet-valid": "Not yet valid",
  expired: "Expired",
};

/**
 * CSV columns in order; list fields are joined with a space (IPs and permissions hold none).
 * state: as the Keys table shows it at the export's time; createdAt, lastUsedAt and lastRefusedAt:
 * API datetimes, empty when the service does not know them (or the key was never called). A key
 * only refused (a disabled key an app still calls) has lastRefusedAt alone: it is not unused.
 */
const CSV_COLUMNS = [
  "key",
  "name",
  "accountKey",
  "permissions",
  "allowedIPs",
  "validFrom",
  "validTo",
  "enabled",
  "state",
  "createdAt",
  "lastUsedAt",
  "lastRefusedAt",
] as const;

/** A key as exports read it: what the list answered, with its creation and usage when asked. */
type ExportedKey = ApiKeyDto & Partial<Pick<ApiKeyWithExtrasDto, "createdAt" | "usage">>;

/** A JSON key's fields, in the API's order (allowedIPs, validFrom and validTo only when set). */
const JSON_FIELDS = [
  "name",
  "key",
  "publicApiKey",
  "accountKey",
  "allowedIPs",
  "permissions",
  "validFrom",
  "validTo",
  "enabled",
] as const;

/** The columns (CSV) or fields (JSON) an export with these options has: what the dialog promises. */
export function exportColumns(options: ExportOptions): string[] {
  if (options.format === "json")
    return JSON_FIELDS.filter((field) => options.withPublicApiKey || field !== "publicApiKey");
  return options.withPublicApiKey ? [...CSV_COLUMNS, "publicApiKey"] : [...CSV_COLUMNS];
}

const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field: injection-guarded, then quoted when RFC 4180 needs it.
 * @internal Exported for tests.
 */
export function csvField(value: string): string {
  const guarded = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

function csvLine(fields: string[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}

function csvRow(key: ExportedKey, withPublicApiKey: boolean, now: number): string {
  const fields = [
    key.key,
    key.name,
    key.accountKey,
    key.permissions.join(" "),
    (key.allowedIPs ?? []).join(" "),
    key.validFrom ?? "",
    key.validTo ?? "",
    String(key.enabled),
    KEY_STATE_LABELS[keyStateAt(validityOf(key), now)],
    key.createdAt ?? "",
    key.usage?.lastUsedAt ?? "",
    key.usage?.lastRefusedAt ?? "",
  ];
  if (withPublicApiKey) fields.push(key.publicApiKey);
  return csvLine(fields);
}

/** A key as exported in JSON: the API's field order, the publicApiKey only when asked. */
function exportedKey(key: ExportedKey, withPublicApiKey: boolean): Partial<ApiKeyDto> {
  // The API's fields only: a listed key's creation and usage (asked for the CSV) stay out.
  const { createdAt: _created, usage: _usage, ...apiKey } = key;
  if (withPublicApiKey) return apiKey;
  const { publicApiKey: _left, ...rest } = apiKey;
  return rest;
}

/**
 * An export written piece by piece (the keys arrive a page at a time): `start()`, then `keys()`
 * for every page, then `end()`; the pieces concatenated are the file.
 */
export function keyExportWriter(options: ExportOptions, now: number = Date.now()) {
  const { format, withPublicApiKey } = options;
  let first = true;
  return {
    start(): string {
      if (format === "json") return '{"apiKeys":[';
      return csvLine(exportColumns(options));
    },
    keys(keys: readonly ExportedKey[]): string {
      if (format === "csv") return keys.map((key) => csvRow(key, withPublicApiKey, now)).join("");
      let text = "";
      for (const key of keys) {
        text += `${first ? "\n" : ",\n"}${JSON.stringify(exportedKey(key, withPublicApiKey))}`;
        first = false;
      }
      return text;
    },
    end(): string {
      return format === "json" ? `${first ? "" : "\n"}]}\n` : "";
    },
  };
}

/**
 * A part of a file name from anyone's text (a profile's or an account's name): ASCII letters,
 * digits, `.`, `_` and `-` kept (the name also travels in a Content-Disposition header, and every
 * file system takes them), every other run of characters one `-`, at most 40, never empty.
 * @internal Exported for tests.
 */
export function fileNamePart(text: string): string {
  const part = [
    ...text
      .normalize("NFC")
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[-.]+|[-.]+$/g, ""),
  ]
    .slice(0, 40)
    .join("")
    .replace(/[-.]+$/, "");
  return part === "" ? "unnamed" : part;
}

/**
 * The file's media type and a name saying where its keys come from and when:
 * `keydesk-<profile>-<account>-2026-11-25.csv`, both names sanitised (fileNamePart).
 */
export function exportFileOf(
  format: ExportFormat,
  now: number,
  from: { profile: string; account: string },
): { fileName: string; contentType: string } {
  const day = new Date(now).toISOString().slice(0, 10);
  return {
    fileName: `keydesk-${fileNamePart(from.profile)}-${fileNamePart(from.account)}-${day}.${format}`,
    contentType: format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
  };
}
