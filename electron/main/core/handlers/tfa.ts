import type { BridgeMethod } from "../../../../shared/bridge.ts";
import { TfaClient } from "../../../client/tfaClient.ts";
import { activeClient, type CoreContext, type HandlerTable } from "../context.ts";
import { CoreFailure } from "../coreFailure.ts";

type TfaMethod = Extract<BridgeMethod, `tfa.${string}`>;

/**
 * The 2FA API of the active profile's service acts in the credentials' own account only: `_`, or
 * that account's own key. Any other account (a sub-account in view) is refused in words here,
 * instead of the service's bare "not found".
 */
async function ownAccountClient(context: CoreContext, accountKey: string): Promise<TfaClient> {
  const client = await activeClient(context);
  if (accountKey !== "_") {
    const [own] = await client.accounts();
    if (own?.accountKey !== accountKey) {
      throw new CoreFailure(
        "NOT_SUPPORTED",
        "2FA applications and templates belong to the account whose credentials call the 2FA API; " +
          "those of a sub-account are managed with its own credentials (a profile that signs in as it)",
      );
    }
  }
  return new TfaClient(client);
}

/** 2FA applications and their message templates, Local and remote profiles alike. */
export const tfaHandlers: HandlerTable<TfaMethod> = {
  "tfa.applications.list": async ({ accountKey }, context) =>
    (await ownAccountClient(context, accountKey)).applications(),
  "tfa.applications.create": async ({ accountKey, request }, context) =>
    (await ownAccountClient(context, accountKey)).createApplication(request),
  "tfa.applications.update": async ({ accountKey, applicationId, request }, context) =>
    (await ownAccountClient(context, accountKey)).updateApplication(applicationId, request),
  "tfa.templates.list": async ({ accountKey, applicationId }, context) =>
    (await ownAccountClient(context, accountKey)).templates(applicationId),
  "tfa.templates.create": async ({ accountKey, applicationId, request }, context) =>
    (await ownAccountClient(context, accountKey)).createTemplate(applicationId, request),
  "tfa.templates.update": async ({ accountKey, applicationId, messageId, request }, context) =>
    (await ownAccountClient(context, accountKey)).updateTemplate(applicationId, messageId, request),
};
