import type { ServiceStatusDto } from "../../../../shared/bridge.ts";
import { activeProfile, type CoreContext, type HandlerTable } from "../context.ts";

function serviceStatus(context: CoreContext): ServiceStatusDto {
  return {
    running: true,
    baseUrl: context.service.url,
    port: context.service.port,
    portChanged: context.service.portChanged,
    takenPort: context.service.takenPort,
    keychain: context.vault.kind,
    ...(context.vault.unavailableReason && { keychainUnavailableReason: context.vault.unavailableReason }),
    ...(context.vault.kind === "session-only" && { localSecretsDir: context.service.dataDir }),
    activeProfileId: activeProfile(context).id,
  };
}

/** The embedded service's state. */
export const serviceHandlers: HandlerTable<"service.status"> = {
  "service.status": async (_args, context) => serviceStatus(context),
};
