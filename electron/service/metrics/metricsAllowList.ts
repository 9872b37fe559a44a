import { isAddressAllowed, normalizeIpEntry } from "../../../shared/ip.ts";

/**
 * Who may read /metrics (`serve --metrics-allow`): client addresses and CIDR ranges, IPv4 or IPv6.
 * The numbers say how busy the service is and how its database is doing, nothing about keys, but
 * they are still nobody else's business: without a list only this machine's loopback may read them.
 */
export const DEFAULT_METRICS_ALLOW: readonly string[] = ["127.0.0.0/8", "::1"];

export interface MetricsAllowList {
  /** The entries, normalized (`10.0.0.1/8` is `10.0.0.0/8`). */
  readonly entries: readonly string[];
  allows(clientAddress: string): boolean;
}

/**
 * The list of the entries given (each may itself be comma-separated, as a flag or an environment
 * variable is written). Throws an Error naming the first entry that is not an address or a range:
 * a typo must stop the start, not leave the metrics open or shut.
 */
export function metricsAllowList(given: readonly string[]): MetricsAllowList {
  const texts = given.flatMap((value) => value.split(",")).map((text) => text.trim());
  if (texts.length === 0 || texts.every((text) => text === ""))
    throw new Error("name at least one address or CIDR range, e.g. 127.0.0.1 or 10.0.0.0/8");
  const entries: string[] = [];
  for (const text of texts) {
    const entry = normalizeIpEntry(text);
    if (entry === null)
      throw new Error(
        `"${text}" is not an IP address or CIDR range; give addresses such as 127.0.0.1 or ::1, or ranges such as 10.0.0.0/8, separated by commas`,
      );
    if (!entries.includes(entry)) entries.push(entry);
  }
  return { entries, allows: (clientAddress) => isAddressAllowed(clientAddress, entries) };
}
