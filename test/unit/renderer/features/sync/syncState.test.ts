import assert from "node:assert/strict";
import { test } from "node:test";
import {
  anyRunning,
  bulkSyncedNotice,
  formatFieldValue,
  formatSyncTime,
  keySyncLook,
  linkedNotice,
  linkStateLook,
  linksOfAccount,
  linkTitle,
  mineChangeText,
  NO_SYNC_MARKS,
  newKeyOnRemote,
  nextRunText,
  notFinalWhy,
  parseSyncTime,
  profileOfLink,
  progressPercent,
  progressText,
  reachesRemote,
  relativeTime,
  remoteOfLink,
  runResultLook,
  staleAfter,
  syncedChangeNotice,
  syncedTo,
  syncMarksOf,
  theirsChangeText,
} from "../../../../../renderer/src/features/sync/syncState.ts";
import type { AccountDto, ProfileDto } from "../../../../../shared/bridge.ts";
import type { SyncLinkDto } from "../../../../../shared/sync.ts";

const OWNER = "A".repeat(32);
const SUB = "B".repeat(32);
const ACCOUNTS: AccountDto[] = [
  { accountKey: OWNER, username: "owner", parentAccountKey: null },
  { accountKey: SUB, username: "qa", parentAccountKey: OWNER },
];

function link(overrides: Partial<SyncLinkDto> = {}): SyncLinkDto {
  return {
    id: 1,
    accountKey: OWNER,
    remote: { baseUrl: "http://127.0.0.1:9000", username: "alice", accountKey: "_" },
    intervalSeconds: 300,
    state: "idle",
    pausedReason: null,
    progress: null,
    lastAttemptAt: "2026-06-15T12:00:00.000+0000",
    lastSuccessAt: "2026-06-15T12:00:00.000+0000",
    lastError: null,
    nextRunAt: "2026-06-15T12:05:00.000+0000",
    pending: 0,
    failed: 0,
    conflicts: 0,
    remoteMissing: 0,
    linkedKeys: 3,
    recentRuns: [],
    ...overrides,
  };
}

test("a link paused by a 401 says it needs credentials; paused by the user just paused", () => {
  assert.equal(
    linkStateLook(link({ state: "paused", pausedReason: "credentials" })).label,
    "Needs credentials",
  );
  assert.equal(linkStateLook(link({ state: "paused", pausedReason: "user" })).label, "Paused");
  assert.equal(linkStateLook(link({ state: "running" })).label, "Syncing");
  assert.equal(linkStateLook(link({ state: "backing-off" })).label, "Retrying later");
  assert.equal(linkStateLook(link()).label, "Up to date");
  assert.equal(linkStateLook(link({ pending: 2 })).label, "Changes waiting");
  assert.equal(linkStateLook(link({ pending: 2, conflicts: 1 })).label, "Needs attention");
  assert.equal(linkStateLook(link({ failed: 1 })).label, "Needs attention");
});

test("the Keys table marks conflict, pending, remote-missing, failed and local-only keys only", () => {
  assert.equal(keySyncLook("conflict")?.label, "Conflict");
  assert.equal(keySyncLook("pending")?.label, "Sync pending");
  assert.equal(keySyncLook("remote-missing")?.label, "Gone from remote");
  assert.equal(keySyncLook("failed")?.label, "Sync failed");
  assert.equal(keySyncLook("synced"), null);
  assert.equal(keySyncLook("local-only")?.label, "Local only");
  assert.equal(keySyncLook(undefined), null);
});

test("field values read as a person says them", () => {
  assert.equal(formatFieldValue("name", "billing"), "billing");
  assert.equal(formatFieldValue("allowedIPs", null), "Any IP");
  assert.equal(formatFieldValue("allowedIPs", []), "Any IP");
  assert.equal(formatFieldValue("allowedIPs", ["10.0.0.0/8", "::1"]), "10.0.0.0/8, ::1");
  assert.equal(formatFieldValue("validTo", null), "(not set)");
  assert.equal(formatFieldValue("enabled", false), "disabled");
  assert.equal(formatFieldValue("permissions", ["ALL"]), "ALL");
});

test("times: the API's format and ISO are read; relative times say ago and in", () => {
  assert.equal(parseSyncTime("2026-06-15T12:00:00.000+0000"), Date.UTC(2026, 5, 15, 12));
  assert.equal(parseSyncTime("2026-06-15T12:00:00.000Z"), Date.UTC(2026, 5, 15, 12));
  assert.equal(parseSyncTime(null), null);
  assert.equal(parseSyncTime("soon"), null);
  const now = Date.UTC(2026, 5, 15, 12);
  assert.equal(relativeTime(now - 2_000, now), "just now");
  assert.equal(relativeTime(now - 30_000, now), "30 s ago");
  assert.equal(relativeTime(now + 180_000, now), "in 3 min");
  assert.equal(relativeTime(now - 2 * 3_600_000, now), "2 h ago");
});

test("progress as a percentage and in words", () => {
  assert.equal(progressPercent(null), 0);
  assert.equal(progressPercent({ phase: "pull", done: 0, total: 0 }), 0);
  assert.equal(progressPercent({ phase: "pull", done: 250, total: 1000 }), 25);
  assert.equal(progressPercent({ phase: "push", done: 12, total: 10 }), 100);
  assert.equal(progressText({ phase: "pull", done: 250, total: 1000 }), "Pulling remote keys: 250 of 1000");
  assert.equal(progressText(null), "Starting…");
});

test("the profile of a link is the remote profile with its base URL and username", () => {
  const profiles: ProfileDto[] = [
    {
      id: "local",
      name: "Local",
      kind: "local",
      baseUrl: "http://127.0.0.1:8787",
      username: "owner",
      active: true,
    },
    {
      id: "p1",
      name: "Other",
      kind: "remote",
      baseUrl: "http://127.0.0.1:9000",
      username: "bob",
      active: false,
    },
    {
      id: "p2",
      name: "Staging",
      kind: "remote",
      baseUrl: "http://127.0.0.1:9000/",
      username: "alice",
      active: false,
    },
  ];
  assert.equal(profileOfLink(link(), profiles)?.id, "p2");
  assert.equal(profileOfLink(link({ remote: { ...link().remote, username: "carol" } }), profiles), undefined);
});

test("a link's title names the local account and the remote profile; the remote user is its detail", () => {
  const team: ProfileDto = {
    id: "p1",
    name: "Team server",
    kind: "remote",
    baseUrl: "http://127.0.0.1:9000",
    username: "alice",
    active: false,
  };
  assert.deepEqual(linkTitle(link(), ACCOUNTS, [team]), {
    title: "owner (own account) ↔ Team server",
    detail: "alice at http://127.0.0.1:9000 (own account)",
  });
  assert.deepEqual(
    linkTitle(link({ accountKey: SUB, remote: { ...link().remote, accountKey: "C".repeat(32) } }), ACCOUNTS, [
      team,
    ]),
    {
      title: "qa (sub-account) ↔ Team server",
      detail: `alice at http://127.0.0.1:9000 (account ${"C".repeat(32)})`,
    },
  );
  // No profile has the link's credentials (removed since): the remote's host names it.
  assert.deepEqual(linkTitle(link(), ACCOUNTS, []), {
    title: "owner (own account) ↔ 127.0.0.1:9000",
    detail: "alice at http://127.0.0.1:9000 (own account)",
  });
});

test("the links of an account: _ is the own account", () => {
  const links = [link({ id: 1 }), link({ id: 2, accountKey: SUB })];
  assert.deepEqual(
    linksOfAccount(links, "_", ACCOUNTS).map((each) => each.id),
    [1],
  );
  assert.deepEqual(
    linksOfAccount(links, SUB, ACCOUNTS).map((each) => each.id),
    [2],
  );
  assert.deepEqual(linksOfAccount(links, "_", undefined), []);
  assert.equal(anyRunning(links), false);
  assert.equal(anyRunning([link({ state: "running" })]), true);
});

test("what a new list of links makes stale: keys after a run, details on new counts, nothing on progress", () => {
  const before = [link({ state: "running", progress: { phase: "pull", done: 1, total: 9 } })];
  assert.deepEqual(staleAfter(undefined, before), { keys: false, details: false });
  assert.deepEqual(
    staleAfter(before, [link({ state: "running", progress: { phase: "pull", done: 5, total: 9 } })]),
    { keys: false, details: false },
  );
  assert.deepEqual(staleAfter(before, [link({ state: "running", conflicts: 1 })]), {
    keys: false,
    details: true,
  });
  assert.deepEqual(staleAfter(before, [link({ lastAttemptAt: "2026-06-15T12:10:00.000+0000" })]), {
    keys: true,
    details: true,
  });
  assert.deepEqual(staleAfter(before, []), { keys: true, details: true });
});

test("a link's time is relative, with the local time and its zone on hover (not 11/23/2026, 4:27:29 PM)", () => {
  const now = Date.UTC(2026, 10, 23, 16, 27, 29);
  const shown = formatSyncTime("2026-11-23T16:25:29.000+0000", now);
  assert.equal(shown.text, "2 min ago");
  assert.match(shown.title ?? "", /2026.*\d{2}:\d{2}:\d{2}.*(UTC|GMT|[A-Z]{3})/);
  assert.deepEqual(formatSyncTime(null, now), { text: "never" });
  assert.deepEqual(formatSyncTime(null, now, "not scheduled"), { text: "not scheduled" });
});

test("a linked key's remote is named by its profile and address, else by user and host", () => {
  const team: ProfileDto = {
    id: "p1",
    name: "Team",
    kind: "remote",
    baseUrl: "http://127.0.0.1:9000/",
    username: "alice",
    active: false,
  };
  assert.deepEqual(remoteOfLink(link(), [team]), { name: "Team", full: "Team (http://127.0.0.1:9000)" });
  // Two profiles of that address and user: either could be the link's, so neither names it.
  assert.equal(
    remoteOfLink(link(), [team, { ...team, id: "p2", name: "Team (old)" }]).name,
    "127.0.0.1:9000",
  );
  assert.deepEqual(remoteOfLink(link(), []), {
    name: "127.0.0.1:9000",
    full: "alice at http://127.0.0.1:9000",
  });
});

test("a change reaches the remote for every linked key but local-only ones and ones gone from it", () => {
  const remote = { name: "Team", full: "Team (http://127.0.0.1:9000)" };
  for (const state of ["synced", "pending", "conflict", "failed"] as const)
    assert.equal(reachesRemote(state), true);
  for (const state of ["local-only", "remote-missing", undefined] as const)
    assert.equal(reachesRemote(state), false);
  assert.equal(syncedTo({ state: "synced", remote }), remote);
  assert.equal(syncedTo({ state: "local-only", remote }), null);
  assert.equal(syncedTo(undefined), null);
  assert.equal(
    syncedChangeNotice(remote),
    "This change also reaches Team (http://127.0.0.1:9000) at the next sync.",
  );
});

test("a linked account's keys are synced but for those listed with news or as local-only", () => {
  const remote = { name: "Team", full: "Team (http://127.0.0.1:9000)" };
  const marks = syncMarksOf({
    remote,
    withNews: [{ key: "K2", state: "pending" }],
    localOnly: ["K3"],
    localOnlyComplete: true,
  });
  assert.deepEqual(marks.get("K1"), { state: "synced", remote });
  assert.deepEqual(marks.get("K2"), { state: "pending", remote });
  assert.deepEqual(marks.get("K3"), { state: "local-only", remote });
  // Until the whole local-only list is known, an unlisted key may be local-only: not marked.
  const partial = syncMarksOf({ remote, withNews: [], localOnly: ["K3"], localOnlyComplete: false });
  assert.equal(partial.get("K1"), undefined);
  assert.equal(
    syncMarksOf({ remote: undefined, withNews: [], localOnly: [], localOnlyComplete: true }).remote,
    null,
  );
});

test("a bulk change's confirmation counts the chosen keys that are synced, and names their remote", () => {
  const remote = { name: "Team", full: "Team (http://127.0.0.1:9000)" };
  const marks = syncMarksOf({
    remote,
    withNews: [{ key: "K2", state: "remote-missing" }],
    localOnly: ["K3"],
    localOnlyComplete: true,
  });
  assert.equal(
    bulkSyncedNotice(marks, ["K1", "K2", "K3", "K4"]),
    "2 of them are synced: the change also reaches Team (http://127.0.0.1:9000) at the next sync.",
  );
  assert.equal(
    bulkSyncedNotice(marks, ["K1"]),
    "1 of them is synced: the change also reaches Team (http://127.0.0.1:9000) at the next sync.",
  );
  assert.equal(bulkSyncedNotice(marks, ["K2", "K3"]), null);
  assert.equal(
    bulkSyncedNotice(marks, "matching"),
    "Those of them synced with Team (http://127.0.0.1:9000) also change there at the next sync.",
  );
  assert.equal(bulkSyncedNotice(NO_SYNC_MARKS, "matching"), null);
});

test("a new link's notice says what its first run did, not to press Sync now", () => {
  assert.deepEqual(linkedNotice({ linkedKeys: 1, pending: 0, lastError: null }, 3), {
    title: "Linked and synced",
    message: "1 key pulled from the remote, 0 pushed. 3 keys of this account stay here until you push them.",
    failed: false,
  });
  assert.equal(
    linkedNotice({ linkedKeys: 40, pending: 0, lastError: null }, 0).message,
    "40 keys pulled from the remote, 0 pushed.",
  );
  assert.deepEqual(linkedNotice({ linkedKeys: 0, pending: 0, lastError: "the remote answered 500" }, 1), {
    title: "Linked; the first sync failed",
    message: "the remote answered 500",
    failed: true,
  });
});

test("a conflict's sides say who changed them and when; a remote that names no author gives when it was seen", () => {
  const now = Date.UTC(2026, 5, 15, 12, 10);
  assert.equal(
    mineChangeText({ by: "owner", at: "2026-06-15T12:07:00.000+0000" }, now).text,
    "by owner, 3 min ago",
  );
  assert.equal(mineChangeText(null, now).text, "change not in the local history");
  assert.equal(
    theirsChangeText(
      { seenAt: "2026-06-15T12:09:00.000+0000", by: "team", at: "2026-06-15T12:05:00.000+0000" },
      now,
    ).text,
    "by team, 5 min ago",
  );
  assert.equal(
    theirsChangeText({ seenAt: "2026-06-15T12:09:00.000+0000", by: null, at: null }, now).text,
    "seen 1 min ago; the remote names no author",
  );
  assert.equal(theirsChangeText(null, now).text, "the remote names no author");
});

test("a run that went through is green only without conflicts; with some it says how many, in orange", () => {
  assert.deepEqual(runResultLook({ conflicts: 0 }), { label: "Synced", color: "green.9" });
  assert.deepEqual(runResultLook({ conflicts: 1 }), { label: "Synced, 1 conflict", color: "orange.9" });
  assert.deepEqual(runResultLook({ conflicts: 3 }), { label: "Synced, 3 conflicts", color: "orange.9" });
});

test("a new key of a linked account has its final publicApiKey once its create reached the remote", () => {
  const news = [
    { key: "K1", remoteKey: null, error: null },
    { key: "K2", remoteKey: null, error: "the remote refused the name" },
    { key: "K3", remoteKey: "R3", error: null },
  ];
  assert.deepEqual(newKeyOnRemote(news, "K1"), { onRemote: false, why: null });
  assert.deepEqual(newKeyOnRemote(news, "K2"), { onRemote: false, why: "the remote refused the name" });
  // Created there, with news of another kind (a pending update) or none (in step, not listed).
  assert.deepEqual(newKeyOnRemote(news, "K3"), { onRemote: true });
  assert.deepEqual(newKeyOnRemote(news, "K4"), { onRemote: true });
});

test("the next run of a link that retries says when the retry is, never just now", () => {
  const now = Date.UTC(2026, 10, 23, 16, 27, 29);
  const at = (ms: number) => new Date(now + ms).toISOString();
  const retrying = (ms: number) => nextRunText({ state: "backing-off", nextRunAt: at(ms) }, now).text;
  assert.equal(retrying(1_000), "retry in 1 s");
  assert.equal(retrying(3_200), "retry in 4 s");
  assert.equal(retrying(40_000), "retry in 40 s");
  assert.equal(retrying(240_000), "retry in 4 min");
  assert.equal(retrying(-500), "retrying now");
  assert.equal(nextRunText({ state: "idle", nextRunAt: at(2_000) }, now).text, "in 2 s");
  assert.equal(nextRunText({ state: "idle", nextRunAt: at(-2_000) }, now).text, "due now");
  assert.match(nextRunText({ state: "idle", nextRunAt: at(300_000) }, now).title ?? "", /0?4:32:29|16:32:29/);
  assert.deepEqual(nextRunText({ state: "paused", nextRunAt: null }, now), { text: "paused" });
  assert.deepEqual(nextRunText({ state: "idle", nextRunAt: null }, now), { text: "not scheduled" });
});

test("a key whose create has not reached the remote has no final publicApiKey to hand out", () => {
  const remote = { name: "Team", full: "Team (https://team.example)" };
  const marks = syncMarksOf({
    remote,
    withNews: [
      { key: "NEW", state: "pending", remoteKey: null },
      { key: "EDITED", state: "pending", remoteKey: "R1" },
    ],
    localOnly: ["OLD"],
    localOnlyComplete: true,
  });
  assert.match(
    notFinalWhy(marks.get("NEW")) ?? "",
    /^Not on Team \(https:\/\/team.example\) yet: its publicApiKey changes/,
  );
  // A pending change of a key the remote has, a local-only key (not pushed) and a key in step: final.
  assert.equal(notFinalWhy(marks.get("EDITED")), null);
  assert.equal(notFinalWhy(marks.get("OLD")), null);
  assert.equal(notFinalWhy(marks.get("SYNCED")), null);
  assert.equal(notFinalWhy(undefined), null);
});
