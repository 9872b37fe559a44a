import assert from "node:assert/strict";
import { test } from "node:test";
import { actorText, entryTitle } from "../../../../../renderer/src/features/keys/keyHistoryText.ts";

const entry = {
  action: "update" as const,
  actor: "owner",
  channel: "desktop" as const,
  address: "127.0.0.1",
  changes: { name: { old: "a", new: "b" } },
};

test("a change says who made it, through what and from where", () => {
  assert.equal(actorText(entry), "by owner via the desktop app from 127.0.0.1");
  assert.equal(actorText({ ...entry, channel: "cli", address: null }), "by owner via the command line");
});

test("a sync pull or push is the link's work, from or to its remote, never a person's", () => {
  const link = { ...entry, actor: "payments-eu", channel: "sync" as const, address: "http://127.0.0.1:8788" };
  assert.equal(
    actorText({ ...link, action: "sync-pull" }),
    "pulled by the sync link of payments-eu from http://127.0.0.1:8788",
  );
  assert.equal(
    actorText({ ...link, action: "sync-push" }),
    "pushed by the sync link of payments-eu to http://127.0.0.1:8788",
    "a push goes to the remote (it said 'from')",
  );
  assert.equal(
    actorText({ ...link, actor: "team", address: "127.0.0.1", action: "update" }),
    "by team via a Keydesk sync link from 127.0.0.1",
    "on the remote: the account the link signs in as, through a sync link",
  );
});

test("a sync's first pull of a key is titled a copy, a later one a change taken from the remote", () => {
  const first = { ...entry, action: "sync-pull" as const, changes: { name: { old: null, new: "billing" } } };
  assert.equal(entryTitle(first), "Copied from the sync remote");
  assert.equal(
    entryTitle({ ...first, changes: { name: { old: "a", new: "b" } } }),
    "Taken from the sync remote",
  );
  assert.equal(entryTitle(entry), "Edited");
});
