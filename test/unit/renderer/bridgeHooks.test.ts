import assert from "node:assert/strict";
import { test } from "node:test";
import { QueryClient, QueryObserver } from "@tanstack/react-query";
import {
  ACTIVE_STATUS_POLL_MS,
  activeStatusPollMs,
  BridgeFailure,
  dropProfileSwitchRefusals,
} from "../../../renderer/src/bridgeHooks.ts";
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

const refusedForLeftProfile = () =>
  Promise.reject(
    new BridgeFailure({
      messageId: "PROFILE_CHANGED",
      text: "nothing was done: this view showed the profile “Team”, and “Local” is the active profile now",
    }),
  );

test("a query refused because its profile was left is dropped: a return to that profile asks it afresh", async () => {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const stop = dropProfileSwitchRefusals(queryClient);
  const queryKey = ["keys.pages", { profile: "team", accountKey: "_" }];
  await queryClient.fetchQuery({ queryKey, queryFn: refusedForLeftProfile }).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(queryClient.getQueryCache().find({ queryKey, exact: true }), undefined);

  // Still in use when refused: kept (its view is on its way out), stale; dropped once unused.
  const observer = new QueryObserver(queryClient, { queryKey, queryFn: refusedForLeftProfile });
  const unsubscribe = observer.subscribe(() => {});
  await new Promise((resolve) => setTimeout(resolve, 20));
  const kept = queryClient.getQueryCache().find({ queryKey, exact: true });
  assert.equal(kept?.state.status, "error");
  assert.equal(kept?.isStale(), true);
  unsubscribe();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(queryClient.getQueryCache().find({ queryKey, exact: true }), undefined);

  // One with an earlier answer keeps it, as of its time, without the refusal; stale.
  const answered = ["pins.list", { profile: "team" }];
  queryClient.setQueryData(answered, [], { updatedAt: 1_000 });
  await queryClient
    .fetchQuery({ queryKey: answered, queryFn: refusedForLeftProfile, staleTime: 0 })
    .catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 0));
  const kept2 = queryClient.getQueryCache().find({ queryKey: answered, exact: true });
  assert.equal(kept2?.state.status, "success");
  assert.equal(kept2?.state.error, null);
  assert.deepEqual(kept2?.state.data, []);
  assert.equal(kept2?.state.dataUpdatedAt, 1_000);
  assert.equal(kept2?.isStale(), true);

  // Other failures stay, to be shown.
  const other = ["keys.count", { profile: "team" }];
  await queryClient
    .fetchQuery({
      queryKey: other,
      queryFn: () => Promise.reject(new BridgeFailure({ messageId: "UNREACHABLE", text: "down" })),
    })
    .catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(queryClient.getQueryCache().find({ queryKey: other, exact: true })?.state.status, "error");
  stop();
  queryClient.clear();
});
