import type { Permission } from "../../../shared/apiKeys.ts";
import { formatApiDateTime } from "../../../shared/datetime.ts";
import { isAddressAllowed } from "../../../shared/ip.ts";

/** What App authorization needs to know about a key: no secret, just its rules. */
export interface KeyGrant {
  key: string;
  accountId: number;
  permissions: readonly Permission[];
  allowedIPs: readonly string[] | null;
  validFrom: number | null;
  validTo: number | null;
  enabled: boolean;
}

export type RefusalReason = "disabled" | "not-yet-valid" | "expired" | "address-not-allowed" | "tfa-only";

export interface Refusal {
  reason: RefusalReason;
  text: string;
}

export interface CallContext {
  now: number;
  clientAddress: string;
  /** Whether the route is one of the seven client-side 2FA methods a TFA key may call. */
  tfaMethod: boolean;
}

/** Why a key may not make this call, or undefined when it may. Rules are checked in a fixed order. */
export function refusalOf(grant: KeyGrant, call: CallContext): Refusal | undefined {
  if (!grant.enabled) {
    return { reason: "disabled", text: `the API key ${grant.key} is disabled; an admin can enable it again` };
  }
  if (grant.validFrom !== null && call.now < grant.validFrom) {
    return {
      reason: "not-yet-valid",
      text: `the API key ${grant.key} is not valid yet: its validFrom is ${formatApiDateTime(grant.validFrom)}`,
    };
  }
  if (grant.validTo !== null && call.now >= grant.validTo) {
    return {
      reason: "expired",
      text: `the API key ${grant.key} has expired: its validTo is ${formatApiDateTime(grant.validTo)}`,
    };
  }
  if (grant.allowedIPs && !isAddressAllowed(call.clientAddress, grant.allowedIPs)) {
    return {
      reason: "address-not-allowed",
      text: `the API key ${grant.key} may not be used from ${call.clientAddress}; its allowedIPs do not include that address`,
    };
  }
  if (!call.tfaMethod && !grant.permissions.includes("ALL")) {
    return {
      reason: "tfa-only",
      text:
        `the API key ${grant.key} has the TFA permission only: it may send, resend and verify PINs and read ` +
        "PIN and verification status; use a key with ALL for this call",
    };
  }
  return undefined;
}
