import { activeClient, type HandlerTable } from "../context.ts";

/** The PIN inbox of the active profile's service (the live stream follows the Local profile: see core.ts). */
export const pinHandlers: HandlerTable<"pins.list"> = {
  "pins.list": async ({ to, applicationId }, context) =>
    (await activeClient(context)).pins({ to, applicationId }),
};
