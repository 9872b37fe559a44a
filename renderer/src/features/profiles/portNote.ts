import type { ServiceStatusDto } from "../../../../shared/bridge.ts";

/**
 * Why the embedded service is not on the port it tried first, or "" when it is. A first start has
 * remembered no port yet: it tried the default, so the note must not speak of a remembered one.
 */
export function portNote(status: Pick<ServiceStatusDto, "takenPort" | "port">): string {
  if (status.takenPort === null || status.port === null) return "";
  const { port, remembered } = status.takenPort;
  return `${remembered ? "the remembered port" : "port"} ${port} was taken, so it uses port ${status.port}`;
}
