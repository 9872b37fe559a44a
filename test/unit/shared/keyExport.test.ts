import assert from "node:assert/strict";
import { test } from "node:test";
import type { ApiKeyDto } from "../../../shared/apiKeys.ts";
import { csvField, exportFileOf, keyExportWriter, writeKeyExport } from "../../../shared/keyExport.ts";

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

test("CSV has a header row, CRLF line ends and one row per key", () => {
  const csv = writeKeyExport([key(), key({ name: "second", enabled: false })], {
    format: "csv",
    withPublicApiKey: false,
  });
  const lines = csv.split("\r\n");
  assert.equal(lines[0], "key,name,accountKey,permissions,allowedIPs,validFrom,validTo,enabled");
  assert.equal(lines[1], `${"A".repeat(32)},billing,${"B".repeat(32)},ALL,,,,true`);
  assert.equal(lines[2], `${"A".repeat(32)},second,${"B".repeat(32)},ALL,,,,false`);
  assert.equal(lines[3], "");
  assert.equal(lines.length, 4);
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
    /,ALL TFA,10\.0\.0\.0\/8 ::1,2026-01-01T00:00:00\.000\+0000,2027-01-01T00:00:00\.000\+0000,true\r\n$/,
  );
});

test("the publicApiKey is in neither format unless asked, and then in both", () => {
  for (const format of ["csv", "json"] as const) {
    assert.ok(!writeKeyExport([key()], { format, withPublicApiKey: false }).includes(SECRET), format);
    assert.ok(writeKeyExport([key()], { format, withPublicApiKey: true }).includes(SECRET), format);
  }
  const header = writeKeyExport([], { format: "csv", withPublicApiKey: true }).split("\r\n")[0];
  assert.ok(header?.endsWith(",enabled,publicApiKey"));
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

test("the file is named after the day and typed as UTF-8", () => {
  const at = Date.parse("2026-11-25T10:00:00Z");
  assert.deepEqual(exportFileOf("csv", at), {
    fileName: "keydesk-keys-2026-11-25.csv",
    contentType: "text/csv; charset=utf-8",
  });
  assert.equal(exportFileOf("json", at).contentType, "application/json; charset=utf-8");
});
