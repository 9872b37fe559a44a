import assert from "node:assert/strict";
import { test } from "node:test";
import type { ApiKeyDto } from "../../../shared/apiKeys.ts";
import {
  csvField,
  exportColumns,
  exportFileOf,
  fileNamePart,
  keyExportWriter,
} from "../../../shared/keyExport.ts";

/** A whole export at once, written by the writer the app streams with. */
function writeKeyExport(keys: readonly ApiKeyDto[], options: Parameters<typeof keyExportWriter>[0]): string {
  const writer = keyExportWriter(options);
  return writer.start() + writer.keys(keys) + writer.end();
}

const SECRET = "0123456789abcdef0123456789abcdef-2b1e0c5a-8f7e-4d3c-9b2a-1f0e9d8c7b6a";

function key(overrides: Partial<ApiKeyDto> = {}): ApiKeyDto {
  return {
    name: "billing",
    key: "A".repeat(32),
    publicApiKey: SECRET,
    accountKey: "B".repeat(32),
    permissions: ["ALL"],
    enabled: true,
    ...overrides,
  };
}

test("CSV has a header row, CRLF line ends and one row per key, its state as the Keys table says it, created, last used and last refused", () => {
  const now = Date.parse("2026-11-25T10:00:00Z");
  const writer = keyExportWriter({ format: "csv", withPublicApiKey: false }, now);
  const csv =
    writer.start() +
    writer.keys([
      {
        ...key(),
        createdAt: "2026-01-02T03:04:05.000+0000",
        usage: {
          total: { allowed: 3, refused: 0 },
          last24Hours: { allowed: 1, refused: 0 },
          lastUsedAt: "2026-11-24T08:00:00.000+0000",
          lastUsedFrom: null,
          lastRefusedAt: null,
          lastRefusedFrom: null,
        } as never,
      },
      {
        ...key({ name: "second", enabled: false }),
        usage: {
          total: { allowed: 0, refused: 2 },
          last24Hours: { allowed: 0, refused: 2 },
          lastUsedAt: null,
          lastUsedFrom: null,
          lastRefusedAt: "2026-11-25T09:00:00.000+0000",
          lastRefusedFrom: "10.1.2.3",
        } as never,
      },
      key({ name: "third", validTo: "2026-11-01T00:00:00.000+0000" }),
      key({ name: "fourth", validFrom: "2026-12-01T00:00:00.000+0000" }),
    ]) +
    writer.end();
  const lines = csv.split("\r\n");
  assert.equal(
    lines[0],
    "key,name,accountKey,permissions,allowedIPs,validFrom,validTo,enabled,state,createdAt,lastUsedAt,lastRefusedAt",
  );
  const A = "A".repeat(32);
  const B = "B".repeat(32);
  assert.equal(
    lines[1],
    `${A},billing,${B},ALL,,,,true,Enabled,2026-01-02T03:04:05.000+0000,2026-11-24T08:00:00.000+0000,`,
  );
  // Never allowed, but refused an hour ago: an app still calls it, and the file says so.
  assert.equal(lines[2], `${A},second,${B},ALL,,,,false,Disabled,,,2026-11-25T09:00:00.000+0000`);
  assert.equal(lines[3], `${A},third,${B},ALL,,,2026-11-01T00:00:00.000+0000,true,Expired,,,`);
  assert.equal(lines[4], `${A},fourth,${B},ALL,,2026-12-01T00:00:00.000+0000,,true,Not yet valid,,,`);
  assert.equal(lines[5], "");
  assert.equal(lines.length, 6);
  assert.deepEqual(exportColumns({ format: "csv", withPublicApiKey: false }), lines[0]?.split(","));
});

test("CSV quotes fields with commas, quotes and line breaks (RFC 4180)", () => {
  assert.equal(csvField('say "hi", then\nleave'), '"say ""hi"", then\nleave"');
  assert.equal(csvField("plain"), "plain");
  assert.equal(csvField("Zürich ключ"), "Zürich ключ");
});

test("a CSV cell a spreadsheet would run as a formula starts with an apostrophe", () => {
  for (const start of ["=", "+", "-", "@", "\t", "\r"]) {
    assert.ok(csvField(`${start}HYPERLINK("x")`).replace(/^"/, "").startsWith(`'${start}`), start);
  }
  const csv = writeKeyExport([key({ name: '=cmd|" /C calc"!A0' })], {
    format: "csv",
    withPublicApiKey: false,
  });
  assert.match(csv, /,"'=cmd\|"" \/C calc""!A0",/);
});

test("lists are joined with spaces and datetimes kept as the API writes them", () => {
  const csv = writeKeyExport(
    [
      key({
        permissions: ["ALL", "TFA"],
        allowedIPs: ["10.0.0.0/8", "::1"],
        validFrom: "2026-01-01T00:00:00.000+0000",
        validTo: "2027-01-01T00:00:00.000+0000",
      }),
    ],
    { format: "csv", withPublicApiKey: false },
  );
  assert.match(
    csv,
    /,ALL TFA,10\.0\.0\.0\/8 ::1,2026-01-01T00:00:00\.000\+0000,2027-01-01T00:00:00\.000\+0000,true,[^,]+,,,\r\n$/,
  );
});

test("the publicApiKey is in neither format unless asked, and then in both", () => {
  for (const format of ["csv", "json"] as const) {
    assert.ok(!writeKeyExport([key()], { format, withPublicApiKey: false }).includes(SECRET), format);
    assert.ok(writeKeyExport([key()], { format, withPublicApiKey: true }).includes(SECRET), format);
  }
  const header = writeKeyExport([], { format: "csv", withPublicApiKey: true }).split("\r\n")[0];
  assert.ok(header?.endsWith(",enabled,state,createdAt,lastUsedAt,lastRefusedAt,publicApiKey"));
});

test("JSON is the API's list shape, each key without its publicApiKey", () => {
  const json = writeKeyExport([key(), key({ name: "two" })], { format: "json", withPublicApiKey: false });
  const parsed = JSON.parse(json) as { apiKeys: Record<string, unknown>[] };
  assert.equal(parsed.apiKeys.length, 2);
  assert.deepEqual(Object.keys(parsed.apiKeys[0] ?? {}), [
    "name",
    "key",
    "accountKey",
    "permissions",
    "enabled",
  ]);
  assert.deepEqual(JSON.parse(writeKeyExport([], { format: "json", withPublicApiKey: false })), {
    apiKeys: [],
  });
});

test("written a page at a time, the pieces make the same file as all at once", () => {
  for (const format of ["csv", "json"] as const) {
    const options = { format, withPublicApiKey: false };
    const writer = keyExportWriter(options);
    const pieces =
      writer.start() +
      writer.keys([key()]) +
      writer.keys([]) +
      writer.keys([key({ name: "b" })]) +
      writer.end();
    assert.equal(pieces, writeKeyExport([key(), key({ name: "b" })], options));
  }
});

test("the file is named after the profile, the account and the day, sanitised, and typed as UTF-8", () => {
  const at = Date.parse("2026-11-25T10:00:00Z");
  assert.deepEqual(exportFileOf("csv", at, { profile: "Local", account: "owner" }), {
    fileName: "keydesk-Local-owner-2026-11-25.csv",
    contentType: "text/csv; charset=utf-8",
  });
  assert.equal(
    exportFileOf("json", at, { profile: "Team (prod) / EU", account: "../../etc/passwd" }).fileName,
    "keydesk-Team-prod-EU-etc-passwd-2026-11-25.json",
  );
  assert.equal(
    exportFileOf("csv", at, { profile: "Zürich ключ", account: "" }).fileName,
    "keydesk-Z-rich-unnamed-2026-11-25.csv",
  );
  assert.equal(fileNamePart("a".repeat(80)).length, 40);
  assert.equal(fileNamePart('con:*?"<>|'), "con");
  assert.equal(
    exportFileOf("json", at, { profile: "p", account: "a" }).contentType,
    "application/json; charset=utf-8",
  );
});
