import type { ApiKeyDto } from "../../../../shared/apiKeys.ts";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { formatApiDateTime, parseApiDateTime } from "../../../../shared/datetime.ts";
import type { RetirementDto } from "../../../../shared/keyLifecycleBridge.ts";
import type { KeyServiceClient } from "../../../client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../../client/serviceCallFailure.ts";
import { toBridgeError } from "../bridgeErrors.ts";
import { activeClient, type HandlerTable } from "../context.ts";
import { CoreFailure } from "../coreFailure.ts";
import { retirement, successorRequest } from "../keyRoll.ts";
import { toKeyView, toRevealedKey } from "../keyViews.ts";

/**
 * Rolling a key: create the successor, then shorten the old key, both marked
 * `Keydesk-Action: rotate`. The two calls cannot be one transaction on a remote, so the order is
 * the safe one: a failed create changes nothing; a failed shortening leaves both keys working (the
 * old one as long as before) and answers what failed, for keys.retire to try again.
 */

async function retire(
  client: KeyServiceClient,
  accountKey: string,
  old: ApiKeyDto,
  retireAt: number,
): Promise<RetirementDto & { old: ApiKeyView }> {
  const plan = retirement(old, retireAt);
  if ("unchanged" in plan) return { state: "unchanged", validTo: plan.unchanged, old: toKeyView(old) };
  try {
    const updated = await client.update(accountKey, old.key, { validTo: plan.validTo }, { action: "rotate" });
    return { state: "shortened", validTo: updated.validTo ?? plan.validTo, old: toKeyView(updated) };
  } catch (error) {
    if (!(error instanceof ServiceCallFailure)) throw error;
    return {
      state: "failed",
      retireAt: formatApiDateTime(retireAt),
      error: toBridgeError(error),
      old: toKeyView(old),
    };
  }
}

export const keyRollHandlers: HandlerTable<"keys.roll" | "keys.retire"> = {
  "keys.roll": async ({ accountKey, key, graceMinutes }, context) => {
    const client = await activeClient(context);
    const old = await client.get(accountKey, key);
    // A create cannot make a disabled key (the spec's create has no `enabled`): the successor of a
    // disabled key would authorize what its predecessor does not, so such a roll is refused.
    if (!old.enabled)
      throw new CoreFailure(
        "INVALID_ARGUMENT",
        `the key "${old.name}" is disabled: a successor would be enabled at once; enable the key first, or create a new key`,
      );
    const now = Date.now();
    const successor = await client.create(accountKey, successorRequest(old, now), { action: "rotate" });
    const { old: after, ...state } = await retire(client, accountKey, old, now + graceMinutes * 60_000);
    return { successor: toRevealedKey(successor), old: after, retirement: state };
  },
  "keys.retire": async ({ accountKey, key, retireAt }, context) => {
    const client = await activeClient(context);
    const old = await client.get(accountKey, key);
    return retire(client, accountKey, old, parseApiDateTime(retireAt) as number);
  },
};
