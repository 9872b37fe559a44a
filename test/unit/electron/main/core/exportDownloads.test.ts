import assert from "node:assert/strict";
import { test } from "node:test";
import { DOWNLOAD_TTL_MS, ExportDownloads } from "../../../../../electron/main/core/exportDownloads.ts";

const file = (name: string) => ({
  fileName: name,
  contentType: "text/csv; charset=utf-8",
  body: Buffer.from(name),
});

test("an export is handed out once, under a random id of 128 bits", () => {
  const downloads = new ExportDownloads();
  const id = downloads.add(file("a.csv"));
  assert.match(id, /^[0-9a-f]{32}$/);
  assert.notEqual(downloads.add(file("b.csv")), id);
  assert.equal(downloads.take(id)?.fileName, "a.csv");
  assert.equal(downloads.take(id), undefined);
  assert.equal(downloads.take("0".repeat(32)), undefined);
});

test("an export not fetched within its time is gone, and only the newest few are kept", () => {
  let now = 0;
  const downloads = new ExportDownloads(() => now);
  const late = downloads.add(file("late.csv"));
  now = DOWNLOAD_TTL_MS;
  assert.equal(downloads.take(late), undefined);
  const ids = Array.from({ length: 6 }, (_, i) => downloads.add(file(`${i}.csv`)));
  assert.equal(downloads.take(ids[0] as string), undefined, "pushed out by newer exports");
  assert.equal(downloads.take(ids[5] as string)?.fileName, "5.csv");
});
