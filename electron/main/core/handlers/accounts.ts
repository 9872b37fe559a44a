import { activeClient, activeProfile, type HandlerTable } from "../context.ts";
import { CoreFailure } from "../coreFailure.ts";

/** The active profile's own account and sub-accounts; sub-accounts are added on the local profile only. */
export const accountHandlers: HandlerTable<"accounts.list" | "accounts.addSubAccount"> = {
  "accounts.list": async (_args, context) => (await activeClient(context)).accounts(),
  "accounts.addSubAccount": async ({ username, password }, context) => {
    if (activeProfile(context).kind !== "local") {
      throw new CoreFailure(
        "NOT_SUPPORTED",
        "sub-accounts can be added on the Local profile only; a remote service's accounts are managed there",
      );
    }
    return context.service.addSubAccount(username, password);
  },
};
