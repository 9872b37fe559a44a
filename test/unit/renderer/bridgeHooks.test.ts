import assert from "node:assert/strict";
import { test } from "node:test";
import { ACTIVE_STATUS_POLL_MS, activeStatusPollMs } from "../../../renderer/src/bridgeHooks.ts";
import type { ActiveProfileStatusDto, ConnectionVerdict } from "../../../shared/bridge.ts";

function status(kind: "local" | "remote", verdict: Omit<ConnectionVerdict, "text">): ActiveProfileStatusDto {
  return {
    profile: {
      id: kind,
      name: kind,
      kind,
      baseUrl: "http://127.0.0.1:8787",
      username: "owner",
      active: true,
    },
    verdict: { ...verdict, text: "…" },
    checkedAt: "2026-06-15T12:00:00.000+0000",
  };
}

test("a remote active profile is checked again every 10 s, reachable or not", () => {
  assert.equal(ACTIVE_STATUS_POLL_MS, 10_000);
  assert.equal(
    activeStatusPollMs(status("remote", { reachable: true, credentialsAccepted: true })),
    ACTIVE_STATUS_POLL_MS,
  );
  assert.equal(
    activeStatusPollMs(status("remote", { reachable: false, credentialsAccepted: false })),
    ACTIVE_STATUS_POLL_MS,
  );
});

test("no polling while a remote refuses the credentials: each check would be one more failed sign-in", () => {
  assert.equal(activeStatusPollMs(status("remote", { reachable: true, credentialsAccepted: false })), false);
});

test("the embedded service (Local profile) and a first check not answered yet are not polled", () => {
  assert.equal(activeStatusPollMs(status("local", { reachable: true, credentialsAccepted: true })), false);
  assert.equal(activeStatusPollMs(undefined), false);
});
