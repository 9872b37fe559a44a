/**
 * Why a backup file is refused, in one line (the CLI prints it after "cannot restore FILE: ", the
 * desktop after "FILE was not restored: "). Its own small module: the CLI loads it before it
 * lowers its priority, and the backup's other modules only after.
 */
export class BackupFileError extends Error {}

/** The refusals of a file: each says it is damaged, or the passphrase wrong, or from a newer Keydesk. */
export const REFUSED = {
  notBackup: "it is not a Keydesk backup file (or its beginning is damaged)",
  wrongOrDamaged: "the passphrase is wrong, or the file is damaged; nothing was written",
  cutShort: "the file is damaged (it is cut short); nothing was written",
  damaged: (what: string) => `the file is damaged (${what}); nothing was written`,
  kdf: "the file is damaged, or was written by a newer Keydesk (its key derivation is not one this Keydesk accepts); nothing was written",
  newerFormat: (format: number, read: readonly number[]) =>
    `it was written by a newer Keydesk (backup format ${format}; this one reads formats ${read.join(", ")}); use a newer Keydesk; nothing was written`,
  newerSchema: (version: number, known: number) =>
    `its database was written by a newer Keydesk (schema ${version}; this one knows ${known}); use a newer Keydesk; nothing was written`,
} as const;
