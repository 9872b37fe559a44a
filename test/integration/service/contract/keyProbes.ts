import { randomUUID } from "node:crypto";
import { STRANGER, SUB, UNKNOWN_ID } from "./contractWorld.ts";
import type { Prober } from "./prober.ts";

/** The key-management operations, the 2FA key shortcut, the account list and the document itself. */

const KEYS = "/settings/1/accounts/_/api-keys";

export async function probeKeyManagement(prober: Prober): Promise<void> {
  const { world } = prober;
  const sub = world.service.accountKeys[SUB] as string;

  await prober.ok({ method: "POST", path: KEYS, body: { name: "contract" } });
  await prober.ok({ method: "POST", path: `/settings/1/accounts/${sub}/api-keys`, body: { name: "in sub" } });
  await prober.probe(400, { method: "POST", path: KEYS, body: { name: "" } });
  await prober.probe(400, {
    method: "POST",
    path: KEYS,
    body: { name: "x" },
    headers: { "idempotency-key": "" },
  });
  await prober.probe(404, { method: "POST", path: `/settings/1/accounts/${UNKNOWN_ID}/api-keys`, body: {} });
  const idempotencyKey = randomUUID();
  const once = { method: "POST", path: KEYS, headers: { "idempotency-key": idempotencyKey } };
  await prober.ok({ ...once, body: { name: "once" } });
  await prober.probe(409, { ...once, body: { name: "another body" } });

  await prober.ok({ path: KEYS });
  await prober.ok({ path: `${KEYS}?enabled=false&name=off` });
  await prober.probe(400, { path: `${KEYS}?enabled=maybe` });
  await prober.probe(400, { path: `${KEYS}?colour=red` });
  await prober.probe(404, { path: `/settings/1/accounts/${UNKNOWN_ID}/api-keys` });
  await prober.probe(404, { path: `/settings/1/accounts/${world.service.accountKeys[STRANGER]}/api-keys` });
  const paged = `${KEYS}?limit=1&permission=ALL&nameContains=ON`;
  const { nextCursor } = await prober.ok<{ nextCursor: string | null }>({ path: paged });
  // A cursor pages the query it came from (another query's is a 400).
  await prober.ok({ path: `${paged}&cursor=${encodeURIComponent(String(nextCursor))}` });
  await prober.probe(400, { path: `${KEYS}?limit=1&cursor=${encodeURIComponent(String(nextCursor))}` });
  await prober.ok({ path: `${KEYS}?state=enabled&sort=name&order=desc&limit=2` });
  await prober.ok({ path: `${KEYS}?sort=validTo` });
  await prober.probe(400, { path: `${KEYS}?sort=size` });
  await prober.probe(400, { path: `${KEYS}?state=active` });
  await prober.probe(400, { path: `${KEYS}?limit=0` });
  await prober.probe(400, { path: `${KEYS}?cursor=elsewhere` });
  await prober.ok({ path: `${KEYS}?include=usage,created` });
  await prober.ok({ path: `${KEYS}?include=created&limit=2&unusedForDays=30` });
  await prober.ok({ path: `${KEYS}?include=usage&sort=name&limit=2` });
  await prober.probe(400, { path: `${KEYS}?include=usage,secrets` });
  await prober.probe(400, { path: `${KEYS}?unusedForDays=0` });

  const COUNT = "/local/1/accounts/_/api-keys/count";
  await prober.ok({ path: COUNT });
  await prober.ok({
    path: `/local/1/accounts/${sub}/api-keys/count?enabled=true&nameContains=sub&permission=ALL`,
  });
  await prober.ok({ path: `${COUNT}?state=expiring-soon` });
  await prober.ok({ path: `${COUNT}?unusedForDays=7` });
  await prober.probe(400, { path: `${COUNT}?cursor=x` });
  await prober.probe(404, { path: `/local/1/accounts/${UNKNOWN_ID}/api-keys/count` });

  const key = `${KEYS}/${world.managed.key}`;
  await prober.ok({ path: key });
  await prober.ok({ path: `${key}?include=usage` });
  await prober.ok({ path: `${key}?include=created` });
  await prober.ok({ path: `${key}?include=created,usage` });
  await prober.probe(400, { path: `${key}?include=everything` });
  await prober.probe(404, { path: `${KEYS}/${UNKNOWN_ID}` });
  await prober.probe(404, { path: `/settings/1/accounts/${UNKNOWN_ID}/api-keys/${world.managed.key}` });
  const series = `/local/1/accounts/_/api-keys/${world.managed.key}/usage-series`;
  await prober.ok({ path: series });
  await prober.probe(400, { path: `${series}?hours=24` });
  await prober.probe(404, { path: `/local/1/accounts/_/api-keys/${UNKNOWN_ID}/usage-series` });
  await prober.probe(404, {
    path: `/local/1/accounts/${world.service.accountKeys[STRANGER]}/api-keys/${world.managed.key}/usage-series`,
  });
  await prober.ok({
    method: "PUT",
    path: key,
    body: { allowedIPs: ["10.0.0.0/8"], validFrom: "2020-01-01T00:00:00.000+0100", validTo: null },
  });
  await prober.probe(400, { method: "PUT", path: key, body: { name: null } });
  await prober.probe(404, { method: "PUT", path: `${KEYS}/${UNKNOWN_ID}`, body: { enabled: true } });

  await prober.ok({ method: "POST", path: "/2fa/2/api-key" });
  await prober.ok({ method: "POST", path: "/2fa/1/api-key", body: {} });
  await prober.probe(400, { method: "POST", path: "/2fa/2/api-key", body: { name: "no body wanted" } });
  await prober.probe(404, { method: "POST", path: "/2fa/3/api-key" });
  await prober.probe(409, {
    method: "POST",
    path: "/2fa/2/api-key",
    headers: { "idempotency-key": idempotencyKey },
  });

  await prober.ok({ path: "/local/1/accounts" });
  await prober.ok({ path: "/openapi.json", authorization: "" });
}
