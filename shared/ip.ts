import ipaddr from "ipaddr.js";

/**
 * Entries of a key's `allowedIPs`: single IPv4/IPv6 addresses or CIDR ranges.
 * Entries are normalized on store so that equal ranges compare equal:
 * IPv6 in RFC 5952 form, IPv4-mapped IPv6 as plain IPv4, CIDR ranges reduced to
 * their network address, a full-length prefix reduced to the bare address.
 */

export const MAX_ALLOWED_IPS = 256;

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function parseAddress(text: string): Address | null {
  // Only the plain forms: ipaddr.js also accepts legacy IPv4 forms like "0x7f.1" or "127.1",
  // which people misread; an allow-list must mean exactly what it says.
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes("%") && ipaddr.IPv6.isValid(text)) {
    const v6 = ipaddr.IPv6.parse(text);
    return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
  }
  return null;
}

function networkOf(address: Address, prefix: number): Address {
  const bytes = address.toByteArray();
  for (let bit = prefix; bit < bytes.length * 8; bit++) {
    const i = bit >> 3;
    bytes[i] = (bytes[i] as number) & ~(0x80 >> (bit & 7));
  }
  return ipaddr.fromByteArray(bytes);
}

/** Returns the normalized form of an allowedIPs entry, or null when it is not a valid one. */
export function normalizeIpEntry(entry: string): string | null {
  const text = entry.trim();
  const slash = text.indexOf("/");
  if (slash === -1) {
    const address = parseAddress(text);
    return address ? address.toString() : null;
  }
  const prefixText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  let prefix = Number(prefixText);
  const rawAddressText = text.slice(0, slash);
  let address: Address | null;
  if (ipaddr.IPv4.isValidFourPartDecimal(rawAddressText)) {
    address = ipaddr.IPv4.parse(rawAddressText);
    if (prefix > 32) return null;
  } else if (!rawAddressText.includes("%") && ipaddr.IPv6.isValid(rawAddressText)) {
    const v6 = ipaddr.IPv6.parse(rawAddressText);
    if (prefix > 128) return null;
    if (v6.isIPv4MappedAddress() && prefix >= 96) {
      address = v6.toIPv4Address();
      prefix -= 96;
    } else {
      address = v6;
    }
  } else {
    return null;
  }
  const fullLength = address.kind() === "ipv4" ? 32 : 128;
  const network = networkOf(address, prefix);
  return prefix === fullLength ? network.toString() : `${network.toString()}/${prefix}`;
}

/** Whether a client address (as the socket reports it) falls inside any normalized entry. */
export function isAddressAllowed(clientAddress: string, normalizedEntries: readonly string[]): boolean {
  const client = parseAddress(clientAddress);
  if (!client) return false;
  for (const entry of normalizedEntries) {
    const slash = entry.indexOf("/");
    const target = parseAddress(slash === -1 ? entry : entry.slice(0, slash));
    if (!target || target.kind() !== client.kind()) continue;
    const prefix = slash === -1 ? (target.kind() === "ipv4" ? 32 : 128) : Number(entry.slice(slash + 1));
    if (client.match(target, prefix)) return true;
  }
  return false;
}
