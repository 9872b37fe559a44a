import dayjs from "dayjs";
import type { Permission } from "../../../../shared/apiKeyRules.ts";
import type { UpdateApiKeyRequest } from "../../../../shared/apiKeys.ts";
import { formatApiDateTime } from "../../../../shared/datetime.ts";
import type { KeyFormValues } from "./KeyForm.tsx";

/** A picker's local time as the API's datetime; null for none. */
export function toApi(picker: string | null): string | null {
  return picker ? formatApiDateTime(dayjs(picker).valueOf()) : null;
}

/** The allowed-IP entries worth sending: trimmed, the empty ones left out. */
export function cleanIps(entries: KeyFormValues["allowedIPs"]): string[] {
  return entries.map((entry) => entry.value.trim()).filter((entry) => entry !== "");
}

/** The permissions in the service's order (ALL before TFA), whatever order they were ticked in. */
export function orderedPermissions(permissions: readonly Permission[]): Permission[] {
  return (["ALL", "TFA"] as const).filter((permission) => permissions.includes(permission));
}

/**
 * The update an edit sends: only the fields the admin changed, so that a rename never rewrites the
 * permissions, the addresses or the window another admin (or a sync) changed meanwhile. Empty when
 * nothing changed.
 */
export function changedFields(initial: KeyFormValues, values: KeyFormValues): UpdateApiKeyRequest {
  const request: UpdateApiKeyRequest = {};
  if (values.name !== initial.name) request.name = values.name;
  const permissions = orderedPermissions(values.permissions);
  if (permissions.join() !== orderedPermissions(initial.permissions).join())
    request.permissions = permissions;
  const ips = cleanIps(values.allowedIPs);
  if (ips.join("\n") !== cleanIps(initial.allowedIPs).join("\n")) request.allowedIPs = ips;
  if (values.validFrom !== initial.validFrom) request.validFrom = toApi(values.validFrom);
  if (values.validTo !== initial.validTo) request.validTo = toApi(values.validTo);
  if (values.enabled !== initial.enabled) request.enabled = values.enabled;
  return request;
}
