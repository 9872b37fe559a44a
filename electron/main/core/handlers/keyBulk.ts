import { keyStateAt, validityOf } from "../../../../shared/apiKeyRules.ts";
import type { ApiKeyDto } from "../../../../shared/apiKeys.ts";
import type { BridgeParsedArgs } from "../../../../shared/bridge.ts";
import type { BulkFailureDto, BulkResultDto } from "../../../../shared/keyLifecycleBridge.ts";
import type { KeyServiceClient } from "../../../client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../../client/serviceCallFailure.ts";
import { toBridgeError } from "../bridgeErrors.ts";
import { activeClient, type CoreContext, type HandlerTable } from "../context.ts";
import { walkKeys } from "../keyWalk.ts";

/**
 * Bulk enable/disable: the selection (keys named, or all a filter matches, resolved here so the
 * renderer never holds them all), then one update per key that is not yet in the state asked
 * for, BULK_CONCURRENCY at a time, each marked `Keydesk-Action: bulk`. A refused key does not
 * stop the others: the result lists each failure with its reason.
 */

/** Updates in flight at once: enough to finish thousands quickly, few enough for a remote's throttle. */
const BULK_CONCURRENCY = 4;
/** A progress event every this many keys (and at the end). */
const PROGRESS_EVERY = 25;

interface Target {
  key: string;
  /** Known from the filter's list (with the validity); read per key when the key was named. */
  known?: Pick<ApiKeyDto, "name" | "enabled" | "validFrom" | "validTo">;
}

async function targetsOf(
  client: KeyServiceClient,
  accountKey: string,
  selection: BridgeParsedArgs<"keys.bulkSetEnabled">["selection"],
): Promise<Target[]> {
  if ("keys" in selection) return [...new Set(selection.keys)].map((key) => ({ key }));
  const except = new Set(selection.except);
  const targets: Target[] = [];
  await walkKeys(client, accountKey, selection.query, undefined, (keys) => {
    for (const { key, name, enabled, validFrom, validTo } of keys)
      if (!except.has(key)) targets.push({ key, known: { name, enabled, validFrom, validTo } });
  });
  return targets;
}

/** Runs `work` on every item, at most `limit` at once. */
async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

async function bulkSetEnabled(
  { accountKey, enabled, selection, progressId }: BridgeParsedArgs<"keys.bulkSetEnabled">,
  context: CoreContext,
): Promise<BulkResultDto> {
  const client = await activeClient(context);
  const targets = await targetsOf(client, accountKey, selection);
  const result: BulkResultDto = {
    selected: targets.length,
    changed: 0,
    skipped: 0,
    failed: [],
    stillRefused: { expired: 0, notYetValid: 0 },
  };
  const now = Date.now();
  const failures = new Map<string, BulkFailureDto>();
  let done = 0;
  const progress = () => {
    done += 1;
    if (progressId !== undefined && (done % PROGRESS_EVERY === 0 || done === targets.length)) {
      context.emit({ type: "bulk-progress", progressId, done, total: targets.length });
    }
  };
  await eachBounded(targets, BULK_CONCURRENCY, async (target) => {
    let name = target.known?.name ?? "";
    try {
      const key = target.known ?? (await client.get(accountKey, target.key));
      name = key.name;
      if (key.enabled === enabled) {
        result.skipped += 1;
      } else {
        await client.update(accountKey, target.key, { enabled }, { action: "bulk" });
        result.changed += 1;
      }
      // Enabled is not working: an expired or not yet valid key is refused all the same.
      if (enabled) {
        const state = keyStateAt(validityOf({ ...key, enabled: true }), now);
        if (state === "expired") result.stillRefused.expired += 1;
        if (state === "not-yet-valid") result.stillRefused.notYetValid += 1;
      }
    } catch (error) {
      if (!(error instanceof ServiceCallFailure)) throw error;
      failures.set(target.key, { key: target.key, name, error: toBridgeError(error) });
    }
    progress();
  });
  // In the selection's order, whatever order the lanes finished in.
  result.failed = targets.flatMap((target) => failures.get(target.key) ?? []);
  return result;
}

export const keyBulkHandlers: HandlerTable<"keys.bulkSetEnabled"> = {
  "keys.bulkSetEnabled": bulkSetEnabled,
};
