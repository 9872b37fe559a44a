import { NAME_MAX_LENGTH } from "./apiKeys.ts";
import { parseApiDateTime } from "./datetime.ts";

/**
 * What a roll writes into names, and what every client reads back from them. The successor keeps
 * the key's name (scripts and people find a key by it); the old key is renamed
 * `<name> (rolled 2026-11-29 07:43:12 UTC)`. The mark lives in the service's data, so that every
 * window, profile and admin of a shared service sees a rolled key as retiring and can find its
 * successor (and the successor its predecessor) among the keys of the same base name, without any
 * memory of the client that rolled. The mark carries the second, not only the day: two rolls of a
 * key on one day must give two names, and the links follow the chain by those times. Names marked
 * before (`(rolled 2026-11-29)`, the day only) are still read, as rolled at the start of that day.
 */

const ROLLED_SUFFIX = / \(rolled (\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2}:\d{2}) UTC)?\)$/;
const DAY = 24 * 3600_000;
/** An old key's end the successor keeps by default only when it is further away than this. */
const KEEP_END_MIN_DAYS = 30;

/** The UTC second of a time, as the suffix writes it: `2026-11-29 07:43:12 UTC`. */
const secondOf = (time: number) => `${new Date(time).toISOString().slice(0, 19).replace("T", " ")} UTC`;

/** The name without a roll's suffix (what the successor of a rolled key is called). */
export function baseName(name: string): string {
  return name.trim().replace(ROLLED_SUFFIX, "");
}

/**
 * `billing` → `billing (rolled 2026-11-25 07:43:12 UTC)`, the base cut (by characters) so that the
 * name stays within the limit; a key rolled again gets a fresh suffix instead of a second one.
 */
export function rolledName(name: string, now: number): string {
  const suffix = ` (rolled ${secondOf(now)})`;
  const base = [...baseName(name)];
  return `${base
    .slice(0, NAME_MAX_LENGTH - suffix.length)
    .join("")
    .trimEnd()}${suffix}`;
}

/**
 * When a name says its key was rolled (the start of that second, UTC; the start of the day for a
 * name marked with the day only); null for a name without the mark.
 * @internal Exported for tests.
 */
export function rolledAt(name: string): number | null {
  const match = ROLLED_SUFFIX.exec(name.trim());
  if (match === null) return null;
  const at = Date.parse(`${match[1]}T${match[2] ?? "00:00:00"}Z`);
  return Number.isNaN(at) ? null : at;
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

/**
 * What the service is asked for a key's roll links (its `nameContains`): the key's base name.
 * The answer holds other names too (`billing-eu` contains `billing`); `rollRelatives` keeps those
 * of the same base name, whatever their mark.
 */
export function rollSearchOf(key: { name: string }): string {
  return baseName(key.name);
}

/**
 * The candidates of the key's base name (any mark or none), the key itself left out.
 * @internal Exported for tests.
 */
export function rollRelatives<K extends Candidate>(key: Candidate, candidates: readonly K[]): K[] {
  const base = baseName(key.name);
  return candidates.filter((candidate) => candidate.key !== key.key && baseName(candidate.name) === base);
}

/**
 * A rolled key's successor among its relatives: the first created at or after the roll's second
 * (the roll creates the successor before it marks the old key, so nothing of that name is created
 * between them). A successor rolled in turn is still found: it was created at that second.
 */
export function successorOf<K extends Candidate>(rolled: Candidate, candidates: readonly K[]): K | null {
  const at = rolledAt(rolled.name);
  if (at === null) return null;
  let best: K | null = null;
  let bestAt = Infinity;
  for (const candidate of rollRelatives(rolled, candidates)) {
    const created = createdOf(candidate);
    if (created !== null && created >= at && created < bestAt) [best, bestAt] = [candidate, created];
  }
  return best;
}

/**
 * A key's predecessor among its relatives: the one whose roll is the latest at or before the key's
 * creation (a chain of rolls: each key was created at its predecessor's roll). Null when the
 * creation time is not known.
 */
export function predecessorOf<K extends Candidate>(successor: Candidate, candidates: readonly K[]): K | null {
  const created = createdOf(successor);
  if (created === null) return null;
  let best: K | null = null;
  let bestAt = -Infinity;
  for (const candidate of rollRelatives(successor, candidates)) {
    const at = rolledAt(candidate.name);
    if (at !== null && at <= created && at > bestAt) [best, bestAt] = [candidate, at];
  }
  return best;
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
