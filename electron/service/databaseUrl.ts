/**
 * The PostgreSQL connection string of `serve --database-url` (KEY_SERVICE_DATABASE_URL): checked
 * before any connection is tried, and shown only without its password.
 */

export class DatabaseUrlError extends Error {}

/** Throws a DatabaseUrlError (naming `origin`, never the text, which may hold a password) unless it is a postgres:// URL. */
export function checkDatabaseUrl(text: string, origin: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new DatabaseUrlError(
      `${origin} is not a URL; give a PostgreSQL connection URL, e.g. postgres://keydesk@db.example:5432/keydesk`,
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    throw new DatabaseUrlError(
      `${origin} must be a postgres:// or postgresql:// URL, not ${url.protocol}// (e.g. postgres://keydesk@db.example:5432/keydesk)`,
    );
  return text.trim();
}

/** The URL as it may be shown (logs, errors): its password replaced, its query left out. */
export function redactDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = "***";
    url.search = "";
    return url.toString();
  } catch {
    return "the database URL";
  }
}
