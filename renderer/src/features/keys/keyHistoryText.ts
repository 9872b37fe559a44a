// What a key's History says of one audit entry: its title and who made it, through what, from where.

import type { AuditEntryDto } from "../../../../shared/audit.ts";

const ACTION_LABELS: Record<AuditEntryDto["action"], string> = {
  create: "Created",
  update: "Edited",
  enable: "Enabled",
  disable: "Disabled",
  rotate: "Rolled",
  "sync-pull": "Taken from the sync remote",
  "sync-push": "Sent to the sync remote",
  "sync-resolve": "Sync conflict resolved",
  "account-add": "Account added",
  "account-passwd": "Password changed",
};

const CHANNEL_LABELS: Record<AuditEntryDto["channel"], string> = {
  api: "the API",
  desktop: "the desktop app",
  cli: "the command line",
  sync: "a Keydesk sync link",
};

type Entry = Pick<AuditEntryDto, "action" | "actor" | "channel" | "address" | "changes">;

/** A create records every field it set with old values null (a sync's first pull of a key too). */
export function setsEveryField(entry: Pick<AuditEntryDto, "changes">): boolean {
  const changes = Object.values(entry.changes);
  return changes.length > 0 && changes.every((change) => change.old === null) && "name" in entry.changes;
}

/** The entry's title: a sync's first pull of a key is its copy, not a change from "not set". */
export function entryTitle(entry: Entry): string {
  if (entry.action === "sync-pull" && setsEveryField(entry)) return "Copied from the sync remote";
  return ACTION_LABELS[entry.action];
}

/**
 * Who made the change. A sync pull or push is the link's work, not its account's person: the
 * account named is the one the link belongs to, and the address is the remote it pulled from or
 * pushed to. On the remote, a change a sync link made is by the remote account it signs in as.
 */
export function actorText(entry: Entry): string {
  const where = entry.address ?? "the remote";
  if (entry.action === "sync-pull") return `pulled by the sync link of ${entry.actor} from ${where}`;
  if (entry.action === "sync-push") return `pushed by the sync link of ${entry.actor} to ${where}`;
  const from = entry.address ? ` from ${entry.address}` : "";
  return `by ${entry.actor} via ${CHANNEL_LABELS[entry.channel]}${from}`;
}
