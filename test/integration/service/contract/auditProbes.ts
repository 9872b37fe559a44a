import { STRANGER, SUB, UNKNOWN_ID } from "./contractWorld.ts";
import type { Prober } from "./prober.ts";

/** The audit history: filters, paging, and the accounts a caller may read. */

const AUDIT = "/local/1/audit";

export async function probeAudit(prober: Prober): Promise<void> {
  const { world } = prober;
  const sub = world.service.accountKeys[SUB] as string;
  const { nextCursor } = await prober.ok<{ nextCursor: string | null }>({ path: `${AUDIT}?limit=1` });
  await prober.ok({ path: `${AUDIT}?limit=1&cursor=${encodeURIComponent(String(nextCursor))}` });
  await prober.ok({
    path: `${AUDIT}?key=${world.managed.key}&actor=owner&account=_&from=2020-01-01T00:00:00Z&to=2999-01-01T00:00:00.000%2B0000`,
  });
  await prober.ok({ path: `${AUDIT}?account=${sub}` });
  await prober.probe(400, { path: `${AUDIT}?from=yesterday` });
  await prober.probe(400, { path: `${AUDIT}?key=publicApiKey` });
  await prober.probe(400, { path: `${AUDIT}?limit=0` });
  await prober.probe(400, { path: `${AUDIT}?cursor=elsewhere` });
  await prober.probe(400, { path: `${AUDIT}?colour=red` });
  await prober.probe(404, { path: `${AUDIT}?account=${UNKNOWN_ID}` });
  await prober.probe(404, { path: `${AUDIT}?account=${world.service.accountKeys[STRANGER]}` });
}
