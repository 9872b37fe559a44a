import assert from "node:assert/strict";
import { SHARED_KEY_NAME, SUB, UNKNOWN_ID } from "./contractWorld.ts";
import type { Prober } from "./prober.ts";

/**
 * Sync links against the foreign remote: linking, runs, a conflict settled, and an outbox entry
 * queued, refused by the remote, retried and discarded. Ends by removing a link.
 */

const LINKS = "/local/1/sync/links";

export async function probeSync(prober: Prober): Promise<void> {
  const { world } = prober;
  const { remote } = world;
  const link = `${LINKS}/${world.linkId}`;
  const remoteBody = { baseUrl: remote.url, username: remote.username, password: remote.password };

  await prober.ok({ path: LINKS });
  await prober.probe(409, { method: "POST", path: LINKS, body: { accountKey: "_", remote: remoteBody } });
  await prober.probe(400, { method: "POST", path: LINKS, body: { accountKey: "_", remote: {} } });
  await prober.probe(404, {
    method: "POST",
    path: LINKS,
    body: { accountKey: UNKNOWN_ID, remote: remoteBody },
  });
  const subLink = await prober.ok<{ id: number }>({
    method: "POST",
    path: LINKS,
    body: { accountKey: world.service.accountKeys[SUB], remote: remoteBody, intervalSeconds: 3600 },
  });

  await prober.ok({ path: link });
  await prober.probe(404, { path: `${LINKS}/999` });
  await prober.ok({ method: "PUT", path: link, body: { intervalSeconds: 3600 } });
  await prober.probe(400, { method: "PUT", path: link, body: { intervalSeconds: 1 } });
  await prober.probe(404, { method: "PUT", path: `${LINKS}/999`, body: { intervalSeconds: 3600 } });
  // The world's keys were made before the link: local-only, listed and one of them pushed.
  const only = await prober.ok<{ count: number; keys: { key: string; enabled: boolean }[] }>({
    path: `${link}/local-only?limit=1000`,
  });
  const pushed = only.keys.find((each) => each.enabled);
  assert.ok(pushed, JSON.stringify(only));
  await prober.probe(400, { path: `${link}/local-only?limit=0` });
  await prober.probe(404, { path: `${LINKS}/999/local-only` });
  const pushPath = `${link}/local-only/push`;
  await prober.probe(400, { method: "POST", path: pushPath, body: {} });
  await prober.probe(404, { method: "POST", path: pushPath, body: { keys: [UNKNOWN_ID] } });
  await prober.probe(404, { method: "POST", path: `${LINKS}/999/local-only/push`, body: { all: true } });
  await prober.ok({ method: "POST", path: pushPath, body: { keys: [pushed.key] } });
  await prober.ok({ method: "POST", path: `${link}/run` });
  await prober.probe(404, { method: "POST", path: `${LINKS}/999/run` });

  // The remote's key, mirrored here, then changed on both sides: a conflict on its name.
  const mirrored = await prober.ok<{ apiKeys: { key: string }[] }>({
    path: `/settings/1/accounts/_/api-keys?name=${encodeURIComponent(SHARED_KEY_NAME)}`,
  });
  const local = mirrored.apiKeys[0]?.key;
  assert.ok(local, `the run mirrored ${SHARED_KEY_NAME} here`);
  const theirs = [...remote.keys.values()].find((key) => key.name === SHARED_KEY_NAME);
  assert.ok(theirs);
  theirs.name = "renamed there";
  await prober.ok({
    method: "PUT",
    path: `/settings/1/accounts/_/api-keys/${local}`,
    body: { name: "here" },
  });
  await prober.ok({ method: "POST", path: `${link}/run` });
  const keys = await prober.ok<{ keys: { key: string; state: string }[] }>({ path: `${link}/keys` });
  assert.ok(
    keys.keys.some((key) => key.key === local && key.state === "conflict"),
    JSON.stringify(keys),
  );
  await prober.probe(404, { path: `${LINKS}/999/keys` });
  const resolve = `${link}/keys/${local}/resolve`;
  await prober.probe(400, { method: "POST", path: resolve, body: { field: "colour", take: "mine" } });
  await prober.probe(404, {
    method: "POST",
    path: `${link}/keys/${UNKNOWN_ID}/resolve`,
    body: { field: "name", take: "mine" },
  });
  await prober.ok({ method: "POST", path: resolve, body: { field: "name", take: "mine" } });
  await prober.probe(409, { method: "POST", path: resolve, body: { field: "name", take: "mine" } });

  // An entry queued while the link is paused, then refused by the remote.
  await prober.ok({ method: "PUT", path: link, body: { paused: true } });
  await prober.ok({
    method: "PUT",
    path: `/settings/1/accounts/_/api-keys/${local}`,
    body: { enabled: false },
  });
  const outbox = await prober.ok<{ entries: { id: number; failed: boolean }[] }>({ path: `${link}/outbox` });
  const entry = outbox.entries.at(-1);
  assert.ok(entry && !entry.failed, JSON.stringify(outbox));
  await prober.probe(404, { path: `${LINKS}/999/outbox` });
  const entryPath = `${link}/outbox/${entry.id}`;
  await prober.probe(409, { method: "DELETE", path: entryPath });
  await prober.ok({ method: "POST", path: `${entryPath}/retry` });
  remote.fail({ method: "PUT", status: 400 });
  await prober.ok({ method: "PUT", path: link, body: { paused: false } });
  await prober.ok({ method: "POST", path: `${link}/run` });
  const failed = await prober.ok<{ entries: { id: number; failed: boolean }[] }>({ path: `${link}/outbox` });
  assert.ok(
    failed.entries.some((each) => each.id === entry.id && each.failed),
    JSON.stringify(failed),
  );
  await prober.probe(204, { method: "DELETE", path: entryPath });
  await prober.probe(404, { method: "DELETE", path: entryPath });
  await prober.probe(404, { method: "POST", path: `${entryPath}/retry` });

  await prober.probe(204, { method: "DELETE", path: `${LINKS}/${subLink.id}` });
  await prober.probe(404, { method: "DELETE", path: `${LINKS}/${subLink.id}` });
}
