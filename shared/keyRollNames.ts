import { NAME_MAX_LENGTH } from "./apiKeys.ts";
import { parseApiDateTime } from "./datetime.ts";

/**
 * What a roll writes into names, and what every client reads back from them. The successor keeps
 * the key's name (scripts and people find a key by it); the old key is renamed
 * `<name> (rolled 2026-11-29)`. The mark lives in the service's data, so that every window,
 * profile and admin of a shared service sees a rolled key as retiring and can find its successor
 * (and the successor its predecessor) by exact name, without any memory of the client that rolled.
 */

const ROLLED_SUFFIX = / \(rolled (\d{4}-\d{2}-\d{2})\)$/;
const DAY = 24 * 3600_000;
/** An old key's end the successor keeps by default only when it is further away than this. */
export const KEEP_END_MIN_DAYS = 30;

/** The UTC day of a time, as the suffix writes it. */
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The name without a roll's suffix (what the successor of a rolled key is called). */
export function baseName(name: string): string {
  return name.trim().replace(ROLLED_SUFFIX, "");
}

/**
 * `billing` → `billing (rolled 2026-11-25)`, the base cut (by characters) so that the name stays
 * within the limit; a key rolled again gets a fresh suffix instead of a second one.
 */
export function rolledName(name: string, now: number): string {
  const suffix = ` (rolled ${dayOf(now)})`;
  const base = [...baseName(name)];
  return `${base
    .slice(0, NAME_MAX_LENGTH - suffix.length)
    .join("")
    .trimEnd()}${suffix}`;
}

/** The start (UTC) of the day a name says its key was rolled; null for a name without the mark. */
export function rolledAt(name: string): number | null {
  const day = ROLLED_SUFFIX.exec(name.trim())?.[1];
  if (day === undefined) return null;
  const start = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(start) ? null : start;
}

/** A rolled key that still works for a while: "retiring in …" rather than "expires in …". */
export function isRetiring(key: { name: string; validTo?: string | undefined }, now: number): boolean {
  const end = key.validTo === undefined ? null : parseApiDateTime(key.validTo);
  return end !== null && end > now && rolledAt(key.name) !== null;
}

interface Candidate {
  key: string;
  name: string;
  createdAt?: string | null | undefined;
}

const createdOf = (key: Candidate) => (key.createdAt ? parseApiDateTime(key.createdAt) : null);

/** The newest of the candidates created within [from, to], or null. */
function newestBetween<K extends Candidate>(candidates: readonly K[], from: number, to: number): K | null {
  let best: K | null = null;
  let bestAt = -Infinity;
  for (const candidate of candidates) {
    const at = createdOf(candidate);
    if (at !== null && at >= from && at <= to && at > bestAt) [best, bestAt] = [candidate, at];
  }
  return best;
}

/**
 * Where a rolled key's successor is looked for: the keys of exactly this name, of which
 * `successorOf` names the one.
 */
export function successorNameOf(rolled: { name: string }): string | null {
  return rolledAt(rolled.name) === null ? null : baseName(rolled.name);
}

/** The successor among the keys named `successorNameOf`: the newest created at or after the roll day. */
export function successorOf<K extends Candidate>(rolled: Candidate, candidates: readonly K[]): K | null {
  const day = rolledAt(rolled.name);
  if (day === null) return null;
  return newestBetween(
    candidates.filter((candidate) => candidate.key !== rolled.key),
    day,
    Infinity,
  );
}

/**
 * Where a key's predecessor is looked for: the name a roll on the day the key was created gave
 * the old key. Null when the creation time is not known.
 */
export function predecessorNameOf(successor: Candidate): string | null {
  const created = createdOf(successor);
  return created === null ? null : rolledName(successor.name, created);
}

/** The predecessor among the keys named `predecessorNameOf`: the newest created before the successor. */
export function predecessorOf<K extends Candidate>(successor: Candidate, candidates: readonly K[]): K | null {
  const created = createdOf(successor);
  if (created === null) return null;
  return newestBetween(
    candidates.filter((candidate) => candidate.key !== successor.key),
    -Infinity,
    created,
  );
}

/**
 * The successor's end a roll proposes: the old key's when it is more than KEEP_END_MIN_DAYS away
 * (the new key would otherwise expire with the old one, days from now), else none. `kept` says
 * whether the old end was taken, for the dialog to say why not.
 */
export function defaultSuccessorEnd(
  oldValidTo: string | undefined,
  now: number,
): { validTo: string | null; oldEnd: number | null; kept: boolean } {
  const end = oldValidTo === undefined ? null : parseApiDateTime(oldValidTo);
  if (end === null) return { validTo: null, oldEnd: null, kept: true };
  const kept = end - now > KEEP_END_MIN_DAYS * DAY;
  return { validTo: kept ? (oldValidTo as string) : null, oldEnd: end, kept };
}
