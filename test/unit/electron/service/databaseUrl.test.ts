import assert from "node:assert/strict";
import { test } from "node:test";
import {
  checkDatabaseUrl,
  DatabaseUrlError,
  redactDatabaseUrl,
} from "../../../../electron/service/databaseUrl.ts";

test("postgres:// and postgresql:// URLs are accepted as given, trimmed", () => {
  assert.equal(
    checkDatabaseUrl(" postgres://u:p@db:5432/keys ", "--database-url"),
    "postgres://u:p@db:5432/keys",
  );
  assert.equal(checkDatabaseUrl("postgresql://db/keys", "X"), "postgresql://db/keys");
});

test("another scheme or no URL at all is refused naming where it came from, never echoing the text", () => {
  for (const text of ["mysql://u:hunter2@db/keys", "hunter2 at db", "", "http://u:hunter2@db/"]) {
    assert.throws(
      () => checkDatabaseUrl(text, "KEY_SERVICE_DATABASE_URL"),
      (error: Error) =>
        error instanceof DatabaseUrlError &&
        error.message.startsWith("KEY_SERVICE_DATABASE_URL ") &&
        !error.message.includes("hunter2"),
    );
  }
});

test("a URL is shown with its password masked and without its query", () => {
  assert.equal(
    redactDatabaseUrl("postgres://keydesk:s3cret@db.internal:5432/keys?sslmode=require&password=x"),
    "postgres://keydesk:***@db.internal:5432/keys",
  );
  assert.equal(redactDatabaseUrl("postgres://db/keys"), "postgres://db/keys");
  assert.equal(redactDatabaseUrl("not a url"), "the database URL");
});
