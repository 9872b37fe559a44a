import dayjs from "dayjs";

/**
 * The key form's end choices: a number of days from now, a date of the admin's, or no end. A preset
 * is a shortcut to a date: the form keeps only validTo (as the picker holds it), so an edit sends
 * validTo only when it differs from the key's (keyEdits.ts changedFields).
 */
const EXPIRY_PRESET_DAYS = [7, 30, 60, 90] as const;
export type ExpiryChoice = `${(typeof EXPIRY_PRESET_DAYS)[number]}d` | "date" | "none";

export const EXPIRY_CHOICES: { value: ExpiryChoice; label: string }[] = [
  ...EXPIRY_PRESET_DAYS.map((days) => ({ value: `${days}d` as ExpiryChoice, label: `${days} days` })),
  { value: "date", label: "Date…" },
  { value: "none", label: "No end" },
];

/** The picker's format (local time), as KeyFormValues holds validFrom and validTo. */
const PICKER_FORMAT = "YYYY-MM-DD HH:mm:ss";

/** The days of a preset; null for "date" and "none". */
function presetDays(choice: ExpiryChoice): number | null {
  const match = /^(\d+)d$/.exec(choice);
  return match ? Number(match[1]) : null;
}

/**
 * The end a choice sets, as the picker holds it: a preset is that many calendar days at the same
 * local time (to the minute: "ends 28 Dec, 14:05", not 14:05:37) from now, or from the key's start
 * when that is later (a key valid from March gets 30 days of use, not an end before its start),
 * "none" is no end, and "date" keeps what the picker holds.
 */
export function validToFor(
  choice: ExpiryChoice,
  now: number,
  current: string | null,
  validFrom: string | null = null,
): string | null {
  if (choice === "none") return null;
  const days = presetDays(choice);
  if (days === null) return current;
  const start = validFrom === null ? now : Math.max(now, dayjs(validFrom).valueOf());
  return dayjs(start).startOf("minute").add(days, "day").format(PICKER_FORMAT);
}

/** The choice an existing end opens as: its date, or no end (a preset is only ever a shortcut). */
export function initialChoice(validTo: string | null): ExpiryChoice {
  return validTo === null ? "none" : "date";
}

/**
 * The form's problem with the window, or undefined: an end at or before the start is the
 * service's refusal too ("must be after validFrom"), so the form refuses it before sending.
 */
export function windowProblem(validFrom: string | null, validTo: string | null): string | undefined {
  if (validFrom === null || validTo === null) return undefined;
  return dayjs(validTo).valueOf() <= dayjs(validFrom).valueOf() ? "Must be after Valid from" : undefined;
}
