import assert from "node:assert/strict";
import { test } from "node:test";
import {
  LOCAL_RESTORE_HINT,
  withLocalRestoreHint,
} from "../../../../../electron/main/core/localRestoreHint.ts";

const damaged = {
  messageId: "SERVICE_UNAVAILABLE",
  text: "the database /data/service/keydesk.db is damaged (database disk image is malformed); stop the service",
} as const;

test("the Local profile's damaged database gets the desktop's way to restore added", () => {
  assert.equal(withLocalRestoreHint(damaged, true).text, `${damaged.text}. ${LOCAL_RESTORE_HINT}`);
});

test("a remote profile's, a full disk's or any other error is passed on as it is", () => {
  assert.deepEqual(withLocalRestoreHint(damaged, false), damaged);
  const full = { messageId: "SERVICE_UNAVAILABLE", text: "the disk holding /data is full" } as const;
  assert.deepEqual(withLocalRestoreHint(full, true), full);
  const other = { messageId: "BAD_REQUEST", text: "the name is damaged" } as const;
  assert.deepEqual(withLocalRestoreHint(other, true), other);
});
