import { MIN_CONSOLE_PASSWORD_LENGTH } from "../../../../shared/credentialRules.ts";
/**
 * A hint of how hard a new password is to guess, for the sub-account form: a rough estimate from
 * its length and the kinds of characters in it, lowered for what guessers try first (the
 * username, common words, runs like "1234" or "aaaa"). Under MIN_LENGTH the form refuses it
 * (shared/credentialRules.ts); above it only a hint: the admin decides.
 */

export type StrengthLevel = "too-short" | "weak" | "fair" | "good" | "strong";

export interface PasswordStrength {
  level: StrengthLevel;
  /** 0 to 4, for a meter. */
  score: 0 | 1 | 2 | 3 | 4;
  /** One sentence: the verdict and how to do better. */
  hint: string;
}

const MIN_LENGTH = MIN_CONSOLE_PASSWORD_LENGTH;

/** Passwords and words guessers try first; one of them inside a password makes it weak. */
const COMMON = [
  "password",
  "passwort",
  "qwerty",
  "azerty",
  "letmein",
  "welcome",
  "admin",
  "secret",
  "123456",
  "iloveyou",
  "monkey",
  "dragon",
];

/** How many characters a guesser must try per position, for the kinds of characters used. */
function poolSize(password: string): number {
  let pool = 0;
  if (/[a-z]/.test(password)) pool += 26;
  if (/[A-Z]/.test(password)) pool += 26;
  if (/[0-9]/.test(password)) pool += 10;
  if (/[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(password)) pool += 33;
  if (/[^\x20-\x7e]/.test(password)) pool += 100;
  return Math.max(pool, 1);
}

/**
 * Characters that add little: each one that repeats its predecessor, or continues a run of the
 * same step (abc, 987), counts a quarter, as guessers try those patterns early.
 */
function effectiveLength(password: string): number {
  const codes = [...password].map((char) => char.codePointAt(0) ?? 0);
  let length = 0;
  for (let index = 0; index < codes.length; index++) {
    const step = (codes[index] ?? 0) - (codes[index - 1] ?? Number.NaN);
    const previousStep = (codes[index - 1] ?? 0) - (codes[index - 2] ?? Number.NaN);
    const repeats = step === 0;
    const continuesRun = Math.abs(step) === 1 && step === previousStep;
    length += repeats || continuesRun ? 0.25 : 1;
  }
  return length;
}

const HINTS: Record<StrengthLevel, string> = {
  "too-short": `Too short: use at least ${MIN_LENGTH} characters; 12 or more is better.`,
  weak: "Weak: easy to guess. Make it longer, avoid the username, common words and runs like 1234.",
  fair: "Fair: longer, or with digits and symbols mixed in, would be safer.",
  good: "Good.",
  strong: "Strong.",
};

export function passwordStrength(password: string, username = ""): PasswordStrength {
  const verdict = (level: StrengthLevel, score: PasswordStrength["score"]): PasswordStrength => ({
    level,
    score,
    hint: HINTS[level],
  });
  if ([...password].length < MIN_LENGTH) return verdict("too-short", 0);
  const lower = password.toLowerCase();
  const name = username.trim().toLowerCase();
  if ((name.length >= 3 && lower.includes(name)) || COMMON.some((word) => lower.includes(word))) {
    return verdict("weak", 1);
  }
  const bits = effectiveLength(password) * Math.log2(poolSize(password));
  if (bits < 40) return verdict("weak", 1);
  if (bits < 60) return verdict("fair", 2);
  if (bits < 80) return verdict("good", 3);
  return verdict("strong", 4);
}
