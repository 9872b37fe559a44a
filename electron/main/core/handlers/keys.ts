import { BridgeFailure } from "../../../client/bridgeFailure.ts";
import { activeClient, type HandlerTable } from "../context.ts";

type KeyMethods =
  | "keys.list"
  | "keys.get"
  | "keys.lookup"
  | "keys.create"
  | "keys.createTfa"
  | "keys.update"
  | "keys.setEnabled";

/** Key operations, through the active profile's API client. */
export const keyHandlers: HandlerTable<KeyMethods> = {
  "keys.list": async ({ accountKey, enabled, permission, name }, context) =>
    (await activeClient(context)).list(accountKey, { enabled, permission, name }),
  "keys.get": async ({ accountKey, key }, context) => (await activeClient(context)).get(accountKey, key),
  "keys.lookup": async ({ accountKey, publicApiKey }, context) =>
    (await activeClient(context)).lookup(accountKey, publicApiKey),
  "keys.create": async ({ accountKey, request }, context) =>
    (await activeClient(context)).create(accountKey, request),
  "keys.createTfa": async ({ accountKey, name }, context) => {
    const client = await activeClient(context);
    if (accountKey !== "_") {
      // The 2FA key call creates keys in the credentials' own account only.
      const own = (await client.accounts())[0];
      if (own?.accountKey !== accountKey) {
        throw new BridgeFailure(
          "NOT_SUPPORTED",
          "a 2FA key can only be created in the profile's own account, not in a sub-account",
        );
      }
    }
    return client.createTfa(name);
  },
  "keys.update": async ({ accountKey, key, request }, context) =>
    (await activeClient(context)).update(accountKey, key, request),
  "keys.setEnabled": async ({ accountKey, key, enabled }, context) =>
    (await activeClient(context)).setEnabled(accountKey, key, enabled),
};
