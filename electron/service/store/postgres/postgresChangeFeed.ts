import { randomBytes } from "node:crypto";
import pg from "pg";
import type { ChangeFeed, PinEventNote } from "../store.ts";

/** The channel every replica's writes notify and every replica listens on. */
export const CHANGES_CHANNEL = "keydesk_changes";
/** How long a dropped LISTEN connection waits before it tries again. */
const RECONNECT_MS = 1000;

export interface HeartbeatOptions {
  /** How often the LISTEN connection is asked a `SELECT 1` while listening. */
  intervalMs: number;
  /** An answer later than this counts as a dead connection. */
  timeoutMs: number;
}

/**
 * A network that dies silently (a dropped route, a firewall's forgotten state) ends no connection:
 * TCP keepalive notices it only after minutes, and meanwhile this replica would keep cached keys that
 * other replicas disabled. So the feed asks its connection every few seconds and treats a late answer
 * as a drop: within about 10 s the replica reads the database on every call, and listens anew.
 */
const HEARTBEAT: HeartbeatOptions = { intervalMs: 5_000, timeoutMs: 5_000 };

/** The payload of a change: `<kind>:<digest hex | id>` (pg_notify's payload is text, 8,000 bytes at most). */
export const keyChange = (digest: Buffer) => `key:${digest.toString("hex")}`;
export const accountChange = (accountId: number) => `account:${accountId}`;
export const pinChange = (pinId: string) => `pin:${pinId}`;
/**
 * `pin-event:<origin>:captured:<accountId>:<sendId>` or
 * `pin-event:<origin>:state:<accountId>:<pinId>:<applicationId>:<attemptsRemaining>:<0|1>`; `origin`
 * is the writing replica's feed (`PostgresChangeFeed.origin`), which skips its own: it told its
 * streams itself, at once.
 */
export function pinEventChange(origin: string, note: PinEventNote): string {
  return note.type === "captured"
    ? `pin-event:${origin}:captured:${note.accountId}:${note.sendId}`
    : `pin-event:${origin}:state:${note.accountId}:${note.pinId}:${note.applicationId}:${note.attemptsRemaining}:${note.verified ? 1 : 0}`;
}

const WHOLE = /^\d+$/;

/**
 * The note of a `pin-event` payload past its origin; undefined for one this version does not read.
 * @internal Exported for tests.
 */
export function pinEventNoteOf(fields: readonly string[]): PinEventNote | undefined {
  const [type, accountId, ...rest] = fields;
  if (!accountId || !WHOLE.test(accountId)) return undefined;
  if (type === "captured" && rest.length === 1 && WHOLE.test(rest[0] as string))
    return { type, accountId: Number(accountId), sendId: Number(rest[0]) };
  const [pinId, applicationId, attemptsRemaining, verified] = rest;
  if (type !== "state" || rest.length !== 4 || !pinId || !applicationId) return undefined;
  if (!WHOLE.test(attemptsRemaining as string) || (verified !== "0" && verified !== "1")) return undefined;
  return {
    type,
    accountId: Number(accountId),
    pinId,
    applicationId,
    attemptsRemaining: Number(attemptsRemaining),
    verified: verified === "1",
  };
}

/**
 * `sent:<ms>`, last of a write's changes: when its replica sent them (its clock), so a replica hearing
 * them knows how late it is (the metrics). Replicas of versions before it ignore the kind.
 */
export const sentChange = (at: number) => `sent:${at}`;

type Listeners<T> = Set<(value: T) => void>;

function subscribe<T>(listeners: Listeners<T>, listener: (value: T) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The ChangeFeed of a PostgresStore (README.md, "Caches across replicas"): one dedicated
 * connection (not from the pool: a pooled one is lent to requests) runs `LISTEN keydesk_changes`
 * and tells each notification's row to the listeners. While it is not listening (not yet
 * connected, dropped, reconnecting every RECONNECT_MS) a notification may be missed, so
 * `generation()` moves on every call and caches keep nothing; once listening it moves again, so
 * nothing loaded before is kept. Opened by the first cache that asks (a store no cache uses opens
 * no connection); `close()` ends it.
 */
export class PostgresChangeFeed implements ChangeFeed {
  readonly #config: pg.ClientConfig;
  readonly #keys: Listeners<Buffer> = new Set();
  readonly #accounts: Listeners<number> = new Set();
  readonly #pins: Listeners<string> = new Set();
  readonly #pinEvents: Listeners<PinEventNote> = new Set();
  readonly #heard: Listeners<number> = new Set();
  /** Names this replica in its PIN event payloads (random: replicas need no configured name). */
  readonly origin = randomBytes(8).toString("hex");
  readonly #whenListening: (() => void)[] = [];
  #client: pg.Client | undefined;
  #listening = false;
  #started = false;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  readonly #heartbeatOptions: HeartbeatOptions;
  #generation = 0;

  /** `config`: how to reach the database (the store's pool's options). */
  constructor(config: pg.ClientConfig, heartbeat: HeartbeatOptions = HEARTBEAT) {
    this.#config = { ...config, keepAlive: true };
    this.#heartbeatOptions = heartbeat;
  }

  generation(): number {
    this.#start();
    if (!this.#listening) this.#generation++;
    return this.#generation;
  }

  onKeyChange(listener: (digest: Buffer) => void): () => void {
    this.#start();
    return subscribe(this.#keys, listener);
  }

  onAccountChange(listener: (accountId: number) => void): () => void {
    this.#start();
    return subscribe(this.#accounts, listener);
  }

  onPinChange(listener: (pinId: string) => void): () => void {
    this.#start();
    return subscribe(this.#pins, listener);
  }

  onPinEvent(listener: (note: PinEventNote) => void): () => void {
    this.#start();
    return subscribe(this.#pinEvents, listener);
  }

  onChangesHeard(listener: (sentAt: number) => void): () => void {
    this.#start();
    return subscribe(this.#heard, listener);
  }

  /** Whether notifications are being received (caches may keep what they load). */
  get listening(): boolean {
    return this.#listening;
  }

  /** Resolves once listening (opens the connection if nothing did yet). */
  whenListening(): Promise<void> {
    this.#start();
    if (this.#listening) return Promise.resolve();
    return new Promise((resolve) => this.#whenListening.push(resolve));
  }

  /** Ends the LISTEN connection for good (the store's owner, on stop). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = undefined;
    this.#listening = false;
    this.#generation++;
    await client?.end().catch(() => {});
  }

  #start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.#listen();
  }

  async #listen(): Promise<void> {
    this.#retry = undefined;
    if (this.#closed) return;
    const client = new pg.Client(this.#config);
    this.#client = client;
    client.on("notification", (message) => {
      if (message.channel === CHANGES_CHANNEL && message.payload) this.#tell(message.payload);
    });
    // A terminated backend, a server restart, a network failure: drop everything, try again.
    client.on("error", () => this.#dropped(client));
    client.on("end", () => this.#dropped(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch {
      this.#dropped(client);
      return;
    }
    if (this.#client !== client) return;
    // Commits between the drop (or the start) and now were not heard: nothing loaded before counts.
    this.#listening = true;
    this.#generation++;
    for (const resolve of this.#whenListening.splice(0)) resolve();
    this.#heartbeat = setInterval(this.#heartbeatOf(client), this.#heartbeatOptions.intervalMs).unref();
  }

  /** `SELECT 1` on the LISTEN connection (one at a time): a late or failed answer drops the connection. */
  #heartbeatOf(client: pg.Client): () => void {
    let beating = false;
    return () => {
      if (beating || this.#client !== client) return;
      beating = true;
      const late = setTimeout(() => this.#dropped(client), this.#heartbeatOptions.timeoutMs).unref();
      client
        .query("SELECT 1")
        .then(
          () => clearTimeout(late),
          () => this.#dropped(client),
        )
        .finally(() => {
          beating = false;
        });
    };
  }

  #dropped(client: pg.Client | undefined): void {
    if (!client || this.#client !== client) return;
    this.#client = undefined;
    this.#listening = false;
    this.#generation++;
    clearInterval(this.#heartbeat);
    client.end().catch(() => {});
    // A silent network never answers the end: the socket goes now (pg's Client keeps it as `connection.stream`).
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    if (!this.#closed) this.#retry = setTimeout(() => void this.#listen(), RECONNECT_MS).unref();
  }

  #tell(payload: string): void {
    const colon = payload.indexOf(":");
    const kind = payload.slice(0, colon);
    const id = payload.slice(colon + 1);
    if (kind === "key") for (const listener of this.#keys) listener(Buffer.from(id, "hex"));
    else if (kind === "account") for (const listener of this.#accounts) listener(Number(id));
    else if (kind === "pin") for (const listener of this.#pins) listener(id);
    else if (kind === "pin-event") {
      const [origin, ...fields] = id.split(":");
      const note = origin === this.origin ? undefined : pinEventNoteOf(fields);
      if (note) for (const listener of this.#pinEvents) listener(note);
    } else if (kind === "sent" && WHOLE.test(id)) for (const listener of this.#heard) listener(Number(id));
  }
}
