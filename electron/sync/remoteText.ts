/**
 * What of a remote's error text the service keeps (a link's lastError, an outbox entry's error).
 * Those texts are shown to every caller who manages the link's account, and a remote (our own
 * service included, when a sub-account links to its parent) may name accounts and keys that caller
 * cannot see: "no API key 9F… in account 3A…". So identifiers are replaced before a text is stored:
 * 32-hex ids (key, accountKey), publicApiKey values (32hex-uuid) and bare UUIDs become `[id]`. The
 * entry or link the text is attached to already says which key it is about; the status and the
 * remote's messageId, kept beside the text, say what went wrong.
 */

const IDENTIFIER =
  /\b[0-9a-f]{32}(?:-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** Longer remote texts are cut: a remote must not fill the database through its error texts. */
const MAX_TEXT = 500;

export function scrubRemoteText(text: string): string {
  const scrubbed = text.replace(IDENTIFIER, "[id]");
  return scrubbed.length > MAX_TEXT ? `${scrubbed.slice(0, MAX_TEXT)}…` : scrubbed;
}
