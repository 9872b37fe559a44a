import type { ApiKeyDto } from "../../../../shared/apiKeys.ts";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { formatApiDateTime, parseApiDateTime } from "../../../../shared/datetime.ts";
import type { RetirementDto } from "../../../../shared/keyLifecycleBridge.ts";
import { defaultSuccessorEnd } from "../../../../shared/keyRollNames.ts";
import type { KeyServiceClient } from "../../../client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../../client/serviceCallFailure.ts";
import { toBridgeError } from "../bridgeErrors.ts";
import { activeClient, type HandlerTable } from "../context.ts";
import { CoreFailure } from "../coreFailure.ts";
import { retirement, successorEndProblem, successorRequest } from "../keyRoll.ts";
import { toKeyView, toRevealedKey } from "../keyViews.ts";

/**
 * Rolling a key: create the successor (under the key's name), then rename and shorten the old key
 * in one update, both marked `Keydesk-Action: rotate`. The two calls cannot be one transaction on a
 * remote, so the order is the safe one: a failed create changes nothing; a failed update leaves
 * both keys working (the old one as long as before, under its name) and answers what failed, for
 * keys.retire to try again (name and end).
 */

async function retire(
  client: KeyServiceClient,
  accountKey: string,
  old: ApiKeyDto,
  retireAt: number,
  rolledAt: number,
): Promise<RetirementDto & { old: ApiKeyView }> {
  const plan = retirement(old, retireAt, rolledAt);
  const state = plan.shortened ? "shortened" : "unchanged";
  if (!plan.shortened && plan.name === old.name) return { state, validTo: plan.validTo, old: toKeyView(old) };
  try {
    const changes = plan.shortened ? { name: plan.name, validTo: plan.validTo } : { name: plan.name };
    const updated = await client.update(accountKey, old.key, changes, { action: "rotate" });
    return { state, validTo: updated.validTo ?? plan.validTo, old: toKeyView(updated) };
  } catch (error) {
    if (!(error instanceof ServiceCallFailure)) throw error;
    return {
      state: "failed",
      retireAt: formatApiDateTime(retireAt),
      rolledAt: formatApiDateTime(rolledAt),
      error: toBridgeError(error),
      old: toKeyView(old),
    };
  }
}

/**
 * The roll's time as the service's clock has it: the successor's creation. Every client links a
 * rolled key to its successor by comparing the roll's mark with the successor's createdAt (see
 * keyRollNames.ts), so the mark must not come from this machine's clock: against a service whose
 * clock is behind, the successor would seem created before the roll and never be found. A service
 * that does not tell creation times (no include=created) gets this machine's time: nothing links
 * there anyway.
 */
async function serviceTimeOfCreation(
  client: KeyServiceClient,
  accountKey: string,
  key: string,
  fallback: number,
): Promise<number> {
  try {
    const created = await client.get(accountKey, key, ["created"]);
    return (created.createdAt ? parseApiDateTime(created.createdAt) : null) ?? fallback;
  } catch (error) {
    // The successor exists; a failed read must not stop the old key's retirement.
    if (error instanceof ServiceCallFailure) return fallback;
    throw error;
  }
}

export const keyRollHandlers: HandlerTable<"keys.roll" | "keys.retire"> = {
  "keys.roll": async ({ accountKey, key, graceMinutes, validTo }, context) => {
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
    const end = validTo === undefined ? defaultSuccessorEnd(old.validTo, now).validTo : validTo;
    const problem = successorEndProblem(end, now);
    if (problem !== null) throw new CoreFailure("INVALID_ARGUMENT", problem, { validTo: [problem] });
    const successor = await client.create(accountKey, successorRequest(old, end), { action: "rotate" });
    const rolledAt = await serviceTimeOfCreation(client, accountKey, successor.key, now);
    const { old: after, ...state } = await retire(
      client,
      accountKey,
      old,
      now + graceMinutes * 60_000,
      rolledAt,
    );
    return { successor: toRevealedKey(successor), old: after, retirement: state };
  },
  "keys.retire": async ({ accountKey, key, retireAt, rolledAt }, context) => {
    const client = await activeClient(context);
    const old = await client.get(accountKey, key);
    const on = rolledAt === undefined ? Date.now() : (parseApiDateTime(rolledAt) as number);
    return retire(client, accountKey, old, parseApiDateTime(retireAt) as number, on);
  },
};
