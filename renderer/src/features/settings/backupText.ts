// Texts of the backup views as plain functions (no React): sizes, counts, sentences, the passphrase rule.

import { MIN_BACKUP_PASSPHRASE } from "../../../../shared/backupBridge.ts";

/** The passphrase's problem for a new backup, or null (as the CLI and main require). */
export function newPassphraseError(value: string): string | null {
  return [...value].length >= MIN_BACKUP_PASSPHRASE
    ? null
    : `At least ${MIN_BACKUP_PASSPHRASE} characters: the file may travel far, and only the passphrase guards it.`;
}

/** 1.2 MB, 340 kB: a file's size for people. */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ["kB", "MB", "GB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** "1 account", "3 keys". */
export function countText(count: number, word: string): string {
  return `${count.toLocaleString()} ${word}${count === 1 ? "" : "s"}`;
}

/** Main's texts come with or without their own full stop: always one, for a sentence after it. */
export function asSentence(text: string | undefined): string {
  const trimmed = (text ?? "").trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
