/**
 * Redacts secrets from a request URL by the shape of their value, wherever they are (path or
 * query, under any parameter name, raw or percent-encoded), because a rule by parameter name is
 * beaten by near-misses (`?publicApiKey[]=`, `?publicApiKey%00=`, `?name=a?publicApiKey=`).
 *
 * The rule, on the URL read as units (a character, or a %XX escape read as the character it
 * encodes, also when encoded again as %25XX):
 * 1. A run of at least 24 units of `[A-Za-z0-9_-]` is a secret and becomes `[redacted]`: a
 *    publicApiKey (69 characters, `32hex-uuid`) and any other long random token (base64url, hex).
 *    Except exactly 32 uppercase hex digits: the service's own identifiers (key, accountKey,
 *    applicationId, messageId, pinId) are never secrets and stay readable, and no secret the
 *    service issues has that shape (a publicApiKey is lowercase and longer).
 * 2. Base64 that decodes to `user:password` text (Basic credentials) is a secret, whatever its
 *    length, also where `+`, `/` or `=` split it (which rule 1 would not see as one run).
 * What else stays readable: route words, short values, numbers, and words of names; a name that
 * is one long word of 24 or more letters is redacted too, a price paid for never missing a key.
 */

/** @internal Exported for tests. */
export const REDACTED = "[redacted]";
const MIN_TOKEN_LENGTH = 24;
const TOKEN_CHAR = /^[A-Za-z0-9_-]$/;
const SERVICE_ID = /^[0-9A-F]{32}$/;
const BASE64_CHAR = /^[A-Za-z0-9+/=]$/;
/** Base64 pieces (split at `/` and `=`) one credentials candidate may span. */
const MAX_BASE64_PIECES = 8;
const MIN_BASE64_LENGTH = 8;
/**
 * Candidates checked per URL. An ordinary URL has a few dozen; one built of thousands of `/`
 * would cost a second of decoding, so past this budget every further base64 run of 8 or more
 * characters is redacted unchecked (fail closed: over-redaction of a pathological URL).
 */
const MAX_CANDIDATES = 4096;

/** A %XX escape, also when its `%` was encoded again (`%2561`, `%252561`): one decoded character. */
const ESCAPE = /%(?:25)*([0-9A-Fa-f]{2})/y;

interface Unit {
  raw: string;
  /** The character the unit stands for. */
  char: string;
}

function unitsOf(url: string): Unit[] {
  const units: Unit[] = [];
  let at = 0;
  while (at < url.length) {
    ESCAPE.lastIndex = at;
    const escaped = ESCAPE.exec(url);
    if (escaped) {
      units.push({ raw: escaped[0], char: String.fromCharCode(Number.parseInt(escaped[1] as string, 16)) });
      at += escaped[0].length;
    } else {
      units.push({ raw: url[at] as string, char: url[at] as string });
      at += 1;
    }
  }
  return units;
}

/** [start, end) of each maximal run of units whose character `inClass` accepts. */
function runsOf(units: Unit[], inClass: RegExp): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let start = -1;
  for (let i = 0; i <= units.length; i++) {
    const inside = i < units.length && inClass.test((units[i] as Unit).char);
    if (inside && start === -1) start = i;
    if (!inside && start !== -1) {
      runs.push([start, i]);
      start = -1;
    }
  }
  return runs;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Whether `text` (base64 characters) is canonical, padded base64 of printable `user:password` text. */
function isBasicCredentials(text: string): boolean {
  // Padded, as every client writes Basic credentials: this also skips three candidates in four.
  if (text.length % 4 !== 0 || text.length < MIN_BASE64_LENGTH) return false;
  const body = text.replace(/={1,2}$/, "");
  if (body.includes("=")) return false;
  const bytes = Buffer.from(body, "base64");
  if (bytes.toString("base64").replace(/=+$/, "") !== body) return false;
  let decoded: string;
  try {
    decoded = utf8.decode(bytes);
  } catch {
    return false;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  return decoded.includes(":") && !/[\u0000-\u001f\u007f]/.test(decoded);
}

/**
 * Marks rule 2's spans inside one run of base64 characters (`text`: the units' characters);
 * answers the candidates left of `budget`.
 */
function markCredentials(
  text: string,
  [start, end]: [number, number],
  secret: boolean[],
  budget: number,
): number {
  if (end - start < MIN_BASE64_LENGTH) return budget;
  // Where a candidate may start or end: the run's ends and either side of each `/`, `+` or `=`
  // (`Basic+<credentials>`, `auth=<credentials>`, `/<credentials>/`).
  const cuts = [start];
  for (let i = start; i < end; i++) {
    const char = text[i];
    if (char === "/" || char === "=" || char === "+") cuts.push(i, i + 1);
  }
  cuts.push(end);
  for (let a = 0; a < cuts.length; a++) {
    const from = cuts[a] as number;
    for (let b = a + 1; b < cuts.length && b <= a + 2 * MAX_BASE64_PIECES; b++) {
      // Padding belongs to the candidate before it.
      let to = cuts[b] as number;
      if (text[to] === "=") to += text[to + 1] === "=" ? 2 : 1;
      to = Math.min(to, end);
      if ((to - from) % 4 !== 0 || to - from < MIN_BASE64_LENGTH) continue;
      if (--budget < 0) {
        secret.fill(true, from, end);
        return budget;
      }
      if (isBasicCredentials(text.slice(from, to))) secret.fill(true, from, to);
    }
  }
  return budget;
}

/** The URL with every value that looks like a secret replaced by `[redacted]`. */
export function redactSecretsInUrl(url: string): string {
  const units = unitsOf(url);
  const secret = new Array<boolean>(units.length).fill(false);
  // One character per unit: indexes into `text` are indexes into `units`.
  const text = units.map((unit) => unit.char).join("");
  for (const [start, end] of runsOf(units, TOKEN_CHAR)) {
    if (end - start >= MIN_TOKEN_LENGTH && !SERVICE_ID.test(text.slice(start, end)))
      secret.fill(true, start, end);
  }
  let budget = MAX_CANDIDATES;
  for (const run of runsOf(units, BASE64_CHAR)) budget = markCredentials(text, run, secret, budget);
  let out = "";
  for (let i = 0; i < units.length; i++) {
    if (!secret[i]) out += (units[i] as Unit).raw;
    else if (i === 0 || !secret[i - 1]) out += REDACTED;
  }
  return out;
}
