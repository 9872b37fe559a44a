import { randomUUID } from "node:crypto";
import { setTimeout as delay, setImmediate as nextTurn } from "node:timers/promises";
import { formatApiDateTime } from "../../shared/datetime.ts";
import {
  type CreateSyncLinkRequest,
  type LocalOnlyKeyPageDto,
  SYNC_RUN_LOG_SIZE,
  type SyncedField,
  type SyncKeyDto,
  type SyncLinkDto,
  type SyncOutboxEntryDto,
  type SyncProgressDto,
  type UpdateSyncLinkRequest,
} from "../../shared/sync.ts";
import { KeyServiceClient } from "../client/keyServiceClient.ts";
import type { DataDir } from "../service/dataDir.ts";
import type { Account } from "../service/domain/accounts.ts";
import { type AuditOrigin, fieldChanges } from "../service/domain/auditEntries.ts";
import type { KeyWriteJournal } from "../service/domain/keyWriteJournal.ts";
import type { OutboxEntry, SyncKeyState, SyncLink } from "../service/domain/syncRecords.ts";
import { badRequest, conflict, notFound } from "../service/errors.ts";
import { DuplicateError, type Store, type StoreWrite } from "../service/store/store.ts";
import { askConflictOrigins, fieldChangeOf } from "./conflictOrigins.ts";
import { checkLinkRemote, type LinkCheckPart } from "./linkCheck.ts";
import { createOutboxJournal } from "./outboxJournal.ts";
import { pullKeys, remoteKeyPages } from "./pull.ts";
import { pushOutbox } from "./push.ts";
import { type RemoteAllowList, refuseRemote } from "./remoteAllowList.ts";
import { backoffMs, classifyRemoteFailure, LinkFailure } from "./remoteFailure.ts";
import type { RunContext } from "./runContext.ts";
import { apiValueOf, type Fields, withField } from "./syncedFields.ts";

/** Key ids looked at per step of a link's key list (most are synced, with nothing to show). */
const STEP_KEY_IDS = 4096;
/** Local-only keys queued per transaction by "push all". */
const PUSH_STEP = 500;
/** Outbox entries per step of the outbox list. */
const STEP_ENTRIES = 256;

export interface SyncEngineOptions {
  now?: () => number;
  /** Per-request timeout towards remotes, answer body included (10 s by default). */
  remoteTimeoutMs?: number;
  /** Remote answers above this many bytes are aborted while they stream in (256 MB by default). */
  maxAnswerBytes?: number;
  /** When given, links may point only to these remotes (serve's --sync-remote-allow); else anywhere. */
  remoteAllow?: RemoteAllowList;
  /**
   * Keys asked for per page of a remote's list (1,000 by default; 1–10,000). A remote that does not
   * page answers its whole list at once.
   */
  pullPageSize?: number;
  /** A local change is pushed this long after it was made (changes in between go together). */
  pushDelayMs?: number;
  /** Told after every run, with its outcome (the service logs it without secrets, and counts it). */
  onRun?: (link: SyncLink, outcome: RunReport) => void;
  /**
   * How long a link's lease lasts unless renewed (60 s; renewed every third of it during a run):
   * how long a replica that died during a run keeps the others from running its link.
   */
  leaseMs?: number;
  /** How often a replica asks again for a lease another one holds (2 s). */
  leaseRetryMs?: number;
}

/** How a run that finished went (a stopped run is not reported). */
interface RunReport {
  ok: boolean;
  text: string;
  /** What kind of failure, when it failed (remoteFailure.ts). */
  failure?: LinkFailure["failure"]["kind"];
  /** From the run's start (the lease held) to its outcome recorded. */
  durationMs: number;
}

/** "elsewhere": another replica holds the link's lease; "done": this run is over (or had nothing to do). */
type RunOutcome = "done" | "elsewhere";

interface Runtime {
  timer?: NodeJS.Timeout;
  running?: Promise<RunOutcome>;
  progress?: SyncProgressDto;
  /** A change was queued during the run: run again right after. */
  again?: boolean;
  /** The run "sync now" asked for while another one was under way. */
  rerun?: Promise<void> | undefined;
  /** The run's lease was taken over (this process stalled past it): the run stops. */
  leaseLost?: boolean;
  problems: string[];
}

/** Entries of a conflicting key's local history read to find who made the local change. */
const LOCAL_HISTORY_READ = 50;

const time = (value: number | null) => (value === null ? null : formatApiDateTime(value));

/**
 * Keeps local accounts in step with remote instances of the API. Each link runs on its own:
 * a run pulls (mirror + three-way merge) and then pushes the outbox. Runs are started by
 * "sync now", by the link's interval, by a local change (after pushDelayMs), and after a
 * failure by exponential backoff, which is also what picks a remote up when it comes back.
 * At most one run per link at a time.
 */
export class SyncEngine {
  readonly #store: Store;
  /** Where the outbox journal is registered (the KeyService tells it of every key write). */
  readonly #journals: Set<KeyWriteJournal>;
  readonly #now: () => number;
  readonly #options: SyncEngineOptions;
  readonly #runtime = new Map<number, Runtime>();
  readonly #journal: KeyWriteJournal;
  #closed = false;
  /** Aborts the requests of runs under way when the engine closes. */
  readonly #closing = new AbortController();
  /** Who holds a lease: this process (random, so a restarted process is another owner). */
  readonly #owner = randomUUID();
  readonly #leaseMs: number;
  readonly #leaseRetryMs: number;

  constructor(data: Pick<DataDir, "store" | "keyJournals">, options: SyncEngineOptions = {}) {
    this.#store = data.store;
    this.#journals = data.keyJournals;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#leaseRetryMs = options.leaseRetryMs ?? 2_000;
    this.#journal = createOutboxJournal(this.#now, (linkId) => this.#changeQueued(linkId));
  }

  /** Starts recording local changes (at once, before the links are read) and schedules every link. */
  start(): Promise<void> {
    this.#journals.add(this.#journal);
    return this.#store.sync.links().then((links) => {
      for (const link of links) this.#schedule(link);
    });
  }

  /**
   * Stops every run (aborting its requests) and schedules none. Local changes are still
   * recorded in the outbox until the data directory closes: requests still in flight while the
   * service stops must not lose theirs.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    for (const runtime of this.#runtime.values()) clearTimeout(runtime.timer);
    await Promise.allSettled([...this.#runtime.values()].map((runtime) => runtime.running));
  }

  #runtimeOf(linkId: number): Runtime {
    let runtime = this.#runtime.get(linkId);
    if (!runtime) {
      runtime = { problems: [] };
      this.#runtime.set(linkId, runtime);
    }
    return runtime;
  }

  // ---- links -------------------------------------------------------------------------------

  /** The link, if these credentials manage its local account. */
  async linkFor(caller: Account, linkId: number): Promise<SyncLink> {
    const link = await this.#store.sync.link(linkId);
    if (!link || !(await this.#store.accounts.manages(caller.id, link.accountId))) {
      throw notFound(`no sync link ${linkId} among the accounts these credentials manage`);
    }
    return link;
  }

  async links(caller: Account): Promise<SyncLinkDto[]> {
    const dtos: SyncLinkDto[] = [];
    for (const link of await this.#store.sync.links()) {
      if (await this.#store.accounts.manages(caller.id, link.accountId)) dtos.push(await this.toDto(link));
    }
    return dtos;
  }

  async createLink(
    account: Account,
    request: Required<Omit<CreateSyncLinkRequest, "accountKey">>,
  ): Promise<SyncLinkDto> {
    this.#checkRemote(request.remote.baseUrl);
    const alreadyLinked = async (sync: Store["sync"]) => {
      if (await sync.linkOfAccount(account.id)) {
        throw conflict(
          `account ${account.accountKey} is already linked to a remote; change or remove that link first`,
        );
      }
    };
    await alreadyLinked(this.#store.sync);
    if (request.check) await this.#checkLinkRemote(request.remote);
    const link = await this.#store.write(async (tx) => {
      await alreadyLinked(tx.sync);
      // Another replica may link the account between that read and this insert (PostgreSQL).
      return tx.sync
        .insertLink({
          accountId: account.id,
          remoteBaseUrl: request.remote.baseUrl.replace(/\/+$/, ""),
          remoteUsername: request.remote.username,
          remotePassword: request.remote.password,
          remoteAccountKey: request.remote.accountKey ?? "_",
          intervalSeconds: request.intervalSeconds,
          now: this.#now(),
        })
        .catch(async (error: unknown) => {
          if (error instanceof DuplicateError) await alreadyLinked(tx.sync);
          throw error;
        });
    });
    this.#schedule(link);
    return await this.toDto(link);
  }

  /**
   * A new link's remote must answer, accept the credentials and let them manage the remote account
   * before the link is stored: a wrong URL or password is refused at once with the part that
   * failed, rather than stored and shown paused a moment later. (`check: false` skips it: a
   * remote down for now can still be linked, and is then retried like any link.)
   */
  async #checkLinkRemote(remote: Required<CreateSyncLinkRequest>["remote"]): Promise<void> {
    const client = this.#remoteClient(remote.baseUrl, remote.username, remote.password);
    const check = await checkLinkRemote(client, remote.accountKey ?? "_");
    if (check.ok) return;
    const field: Record<LinkCheckPart, string> = {
      reachable: "remote.baseUrl",
      credentials: "remote.password",
      account: "remote.accountKey",
    };
    throw badRequest(
      `the link was not made: ${check.text} (send "check": false to link without this check)`,
      { [field[check.part]]: [check.text] },
    );
  }

  /** A client of a remote, as the engine calls it (timeouts, answer limit, Keydesk-Client: sync). */
  #remoteClient(baseUrl: string, username: string, password: string): KeyServiceClient {
    return new KeyServiceClient({
      baseUrl,
      username,
      password,
      clientKind: "sync",
      signal: this.#closing.signal,
      ...(this.#options.remoteTimeoutMs !== undefined && { timeoutMs: this.#options.remoteTimeoutMs }),
      ...(this.#options.maxAnswerBytes !== undefined && { maxAnswerBytes: this.#options.maxAnswerBytes }),
    });
  }

  /** Refused before anything is stored: the service must not be made to call remotes it does not allow. */
  #checkRemote(baseUrl: string | undefined): void {
    const allow = this.#options.remoteAllow;
    if (baseUrl !== undefined && allow && !allow.allows(baseUrl)) throw refuseRemote(baseUrl, allow);
  }

  async updateLink(link: SyncLink, request: UpdateSyncLinkRequest): Promise<SyncLinkDto> {
    this.#checkRemote(request.remote?.baseUrl);
    await this.#store.write(async (tx) => {
      if (request.remote) {
        await tx.sync.setRemote(link, {
          baseUrl: request.remote.baseUrl?.replace(/\/+$/, ""),
          username: request.remote.username,
          password: request.remote.password,
        });
      }
      if (request.intervalSeconds !== undefined) {
        await tx.sync.setInterval(link.id, request.intervalSeconds);
        // A shorter interval applies to the run already planned.
        const due = (link.lastSuccessAt ?? this.#now()) + request.intervalSeconds * 1000;
        if (link.failures === 0 && (link.nextAttemptAt === null || due < link.nextAttemptAt)) {
          await tx.sync.planRun(link.id, due);
        }
      }
      if (request.paused === true) await tx.sync.setPaused(link.id, "user");
      if (request.paused === false) await tx.sync.setPaused(link.id, null);
      // New credentials or a resume: try at once rather than at the end of a backoff.
      if (request.remote || request.paused === false) await tx.sync.planRun(link.id, this.#now());
    });
    const updated = (await this.#store.sync.link(link.id)) as SyncLink;
    this.#schedule(updated);
    return await this.toDto(updated);
  }

  async deleteLink(link: SyncLink): Promise<void> {
    const runtime = this.#runtimeOf(link.id);
    clearTimeout(runtime.timer);
    await runtime.running;
    await this.#store.write((tx) => tx.sync.deleteLink(link.id));
    this.#runtime.delete(link.id);
  }

  async toDto(link: SyncLink): Promise<SyncLinkDto> {
    const account = await this.#store.accounts.byId(link.accountId);
    const counts = await this.#store.sync.counts(link.id);
    const runtime = this.#runtime.get(link.id);
    const state = runtime?.running
      ? "running"
      : link.pausedReason
        ? "paused"
        : link.failures > 0
          ? "backing-off"
          : "idle";
    return {
      id: link.id,
      accountKey: account?.accountKey ?? "",
      remote: {
        baseUrl: link.remoteBaseUrl,
        username: link.remoteUsername,
        accountKey: link.remoteAccountKey,
      },
      intervalSeconds: link.intervalSeconds,
      state,
      pausedReason: link.pausedReason,
      progress: runtime?.running ? (runtime.progress ?? null) : null,
      lastAttemptAt: time(link.lastAttemptAt),
      lastSuccessAt: time(link.lastSuccessAt),
      lastError: link.lastError,
      nextRunAt: link.pausedReason ? null : time(link.nextAttemptAt),
      ...counts,
      recentRuns: link.runLog.map((run) => ({
        ...run,
        startedAt: formatApiDateTime(run.startedAt),
        endedAt: formatApiDateTime(run.endedAt),
      })),
    };
  }

  // ---- running -------------------------------------------------------------------------------

  /**
   * Runs the link now and answers its state afterwards. With a run under way, waits for it and
   * then runs again: that run may have started before the changes the caller wants synced.
   * Callers waiting together share the second run. Another replica running the link (it holds
   * the lease) is waited for the same way: this one runs it once the lease is free.
   */
  async runNow(link: SyncLink): Promise<SyncLinkDto> {
    const runtime = this.#runtimeOf(link.id);
    if (runtime.running) {
      runtime.rerun ??= runtime.running.then(() => {
        runtime.rerun = undefined;
        return this.#runHere(link.id);
      });
      await runtime.rerun;
    } else {
      await this.#runHere(link.id);
    }
    return await this.toDto((await this.#store.sync.link(link.id)) as SyncLink);
  }

  /** Runs the link, waiting for the lease while another replica holds it. */
  async #runHere(linkId: number): Promise<void> {
    while ((await this.#run(linkId)) !== "done" && !this.#closed) {
      await delay(this.#leaseRetryMs, undefined, { ref: false });
    }
  }

  /** Plans a push of a change just queued (told inside the write that queued it). */
  #changeQueued(linkId: number): void {
    const runtime = this.#runtimeOf(linkId);
    if (runtime.running) {
      runtime.again = true;
      return;
    }
    this.#store.sync.link(linkId).then(
      (link) => {
        // Paused, or backing off after a failure: the change waits for that run.
        if (!link || link.pausedReason || link.failures > 0) return;
        this.#arm(linkId, this.#options.pushDelayMs ?? 1_000);
      },
      // Unreadable (the store is closing): the change waits in the outbox for the link's next run.
      () => undefined,
    );
  }

  #schedule(link: SyncLink): void {
    if (this.#closed) return;
    const runtime = this.#runtimeOf(link.id);
    clearTimeout(runtime.timer);
    if (link.pausedReason) return;
    const due = link.nextAttemptAt ?? this.#now();
    this.#arm(link.id, Math.max(0, due - this.#now()), link.nextAttemptAt);
  }

  /**
   * `planned`: the link's nextAttemptAt when this is the run its schedule planned (another replica
   * may make it first); undefined for a run wanted now (a change to push, "sync now").
   */
  #arm(linkId: number, delayMs: number, planned?: number | null): void {
    if (this.#closed) return;
    const runtime = this.#runtimeOf(linkId);
    clearTimeout(runtime.timer);
    // setTimeout's limit is about 24.8 days; intervals are at most a day.
    runtime.timer = setTimeout(() => void this.#run(linkId, planned), Math.min(delayMs, 2 ** 31 - 1));
    runtime.timer.unref();
  }

  #run(linkId: number, planned?: number | null): Promise<RunOutcome> {
    const runtime = this.#runtimeOf(linkId);
    if (runtime.running) return runtime.running;
    clearTimeout(runtime.timer);
    runtime.again = false;
    runtime.problems = [];
    let outcome: RunOutcome = "done";
    runtime.running = this.#leased(linkId, runtime, planned)
      .then((result) => {
        outcome = result;
        return result;
      })
      .finally(async () => {
        // Still "running" while the link is read: a change queued meanwhile sets `again`.
        const link = await this.#store.sync.link(linkId).catch(() => undefined);
        runtime.running = undefined;
        runtime.progress = undefined;
        if (!link || this.#closed) return;
        // Another replica runs it: try again shortly (it may stop, or its lease expire).
        if (outcome === "elsewhere")
          this.#arm(linkId, this.#leaseRetryMs, runtime.again ? undefined : planned);
        else if (runtime.again && !link.pausedReason && link.failures === 0) this.#arm(linkId, 0);
        else this.#schedule(link);
      });
    return runtime.running;
  }

  /**
   * Runs the link while this process holds its lease (renewed every third of it during the run,
   * given up after): of several replicas on one database, one runs a link at a time. A run that
   * loses its lease (this process stalled past it) stops between operations, as when closing.
   */
  async #leased(linkId: number, runtime: Runtime, planned: number | null | undefined): Promise<RunOutcome> {
    if (this.#closed) return "done";
    const lease = () => this.#store.write((tx) => this.#holdLease(tx, linkId));
    if (!(await lease())) return "elsewhere";
    runtime.leaseLost = false;
    const renewal = setInterval(() => {
      lease().then(
        (held) => {
          if (!held) runtime.leaseLost = true;
        },
        () => undefined,
      );
    }, this.#leaseMs / 3);
    renewal.unref();
    try {
      const link = await this.#store.sync.link(linkId);
      // Another replica made (or moved) the planned run between this one's timer and its lease.
      if (planned !== undefined && link && link.nextAttemptAt !== planned) return "done";
      await this.#runOnce(link, runtime);
      return "done";
    } finally {
      clearInterval(renewal);
      await this.#store.write((tx) => tx.sync.releaseLink(linkId, this.#owner)).catch(() => undefined);
    }
  }

  /** Takes or renews the link's lease in `tx`: whether this process holds it to the write's commit. */
  #holdLease(tx: StoreWrite, linkId: number): Promise<boolean> {
    return tx.sync.leaseLink(linkId, this.#owner, this.#now() + this.#leaseMs, this.#now());
  }

  /**
   * Writes a run's outcome (success or failure, and its entry in the run log) only if this process
   * still holds the link's lease, renewed in the same write: a process that stalled past its lease
   * may not have heard yet that another replica took the link over, and that replica writes the
   * link's outcome and log now. False when the lease was lost: the run is then a stopped one.
   */
  #recordOutcome(
    linkId: number,
    runtime: Runtime,
    work: (tx: StoreWrite) => Promise<void>,
  ): Promise<boolean> {
    return this.#store.write(async (tx) => {
      if (!(await this.#holdLease(tx, linkId))) {
        runtime.leaseLost = true;
        return false;
      }
      await work(tx);
      return true;
    });
  }

  async #runOnce(link: SyncLink | undefined, runtime: Runtime): Promise<void> {
    if (!link || link.pausedReason || this.#closed) return;
    const account = await this.#store.accounts.byId(link.accountId);
    if (!account) return;
    const started = this.#now();
    // Durations by the monotonic clock: `now` may be a test's, and a wall clock may be set back.
    const startedAt = performance.now();
    const durationMs = () => performance.now() - startedAt;
    await this.#store.write((tx) => tx.sync.recordLinkAttempt(link.id, started));
    const password = await this.#store.sync.remotePassword(link);
    const stopped = () => this.#closed || runtime.leaseLost === true;
    const context: RunContext = {
      store: this.#store,
      link,
      account,
      client: this.#remoteClient(link.remoteBaseUrl, link.remoteUsername, password),
      now: this.#now,
      progress: (progress) => {
        runtime.progress = progress;
      },
      problem: (text) => {
        if (runtime.problems.length < 20) runtime.problems.push(text);
      },
      stopped,
      tally: { pulled: new Set(), pushed: new Set() },
      freshConflicts: [],
    };
    /** The run in the link's log, written with its outcome. */
    const logged = async (tx: StoreWrite, error: string | null) =>
      tx.sync.recordRun(
        link.id,
        {
          startedAt: started,
          endedAt: this.#now(),
          pulled: context.tally.pulled.size,
          pushed: context.tally.pushed.size,
          conflicts: (await tx.sync.counts(link.id)).conflicts,
          error,
        },
        SYNC_RUN_LOG_SIZE,
      );
    try {
      const allow = this.#options.remoteAllow;
      // A link made before the service was restricted: it waits (with backoff) until it is moved.
      if (allow && !allow.allows(link.remoteBaseUrl)) {
        throw new LinkFailure({ kind: "unavailable", text: refuseRemote(link.remoteBaseUrl, allow).message });
      }
      await pullKeys(
        context,
        remoteKeyPages(context.client, link.remoteAccountKey, this.#options.pullPageSize),
      );
      await askConflictOrigins(context);
      await pushOutbox(context);
      // Stopped part way: the link stays due, and is run again (here at the next start, or elsewhere).
      if (stopped()) return;
      const problems = runtime.problems;
      const text =
        problems.length > 0 ? `synced, with ${problems.length} problem(s): ${problems.join("; ")}` : "synced";
      const next = this.#now() + link.intervalSeconds * 1000;
      const recorded = await this.#recordOutcome(link.id, runtime, async (tx) => {
        await tx.sync.recordSuccess(link.id, this.#now(), next, problems.length > 0 ? text : null);
        await logged(tx, problems.length > 0 ? text : null);
      });
      if (recorded) this.#options.onRun?.(link, { ok: true, text, durationMs: durationMs() });
    } catch (error) {
      if (stopped()) return;
      const failure = error instanceof LinkFailure ? error.failure : classifyRemoteFailure(error);
      const failures = link.failures + 1;
      const recorded = await this.#recordOutcome(link.id, runtime, async (tx) => {
        if (failure.kind === "credentials") {
          const text = `${failure.text}; enter the remote's credentials again`;
          await tx.sync.recordFailure(link.id, text, null, failures);
          await tx.sync.setPaused(link.id, "credentials");
          await logged(tx, text);
          return;
        }
        await logged(tx, failure.text);
        const backoff = backoffMs(failures);
        const wait = failure.kind === "throttled" ? Math.max(failure.retryAfterMs ?? 0, backoff) : backoff;
        await tx.sync.recordFailure(link.id, failure.text, this.#now() + wait, failures);
      });
      if (!recorded) return;
      this.#options.onRun?.(link, {
        ok: false,
        text: failure.text,
        failure: failure.kind,
        durationMs: durationMs(),
      });
    }
  }

  // ---- local-only keys -----------------------------------------------------------------------

  /** The count of the link's local-only keys and a page of them, after `cursor` (a nextCursor). */
  async localOnly(link: SyncLink, page: { limit: number; after: number }): Promise<LocalOnlyKeyPageDto> {
    const rows = await this.#store.sync.localOnlyKeys(link.accountId, page.after, page.limit + 1);
    const keys = rows.slice(0, page.limit);
    const last = keys.at(-1);
    return {
      count: await this.#store.sync.countLocalOnly(link.accountId),
      keys: keys.map(({ key, name, enabled, validFrom, validTo }) => ({
        key,
        name,
        enabled,
        ...(validFrom !== null && { validFrom: formatApiDateTime(validFrom) }),
        ...(validTo !== null && { validTo: formatApiDateTime(validTo) }),
      })),
      nextCursor: rows.length > page.limit && last ? String(last.id) : null,
    };
  }

  /**
   * Queues the create of local-only keys (the ones named, or all of them) in the outbox, like a
   * key created after the link: a disabled one is created not yet valid and disabled right after
   * (push.ts). Keys are taken in chunks, one transaction each, with a turn of the event loop in
   * between. Named keys that are not the account's are a 404 before anything is queued; named keys
   * already linked are skipped.
   */
  async pushLocalOnly(link: SyncLink, which: { keys: readonly string[] } | { all: true }): Promise<number> {
    let queued = 0;
    const queue = (ids: readonly number[]) =>
      this.#store.write(async (tx) => {
        for (const id of ids) {
          if (await tx.sync.queueCreate(link.id, id, randomUUID(), this.#now())) queued++;
        }
      });
    if ("keys" in which) {
      const ids: number[] = [];
      for (const key of which.keys) {
        const stored = await this.#store.apiKeys.get(link.accountId, key);
        if (!stored) throw notFound(`no key ${key} in the linked account`);
        ids.push(stored.id);
      }
      await queue(ids);
    } else {
      let after = 0;
      for (;;) {
        const step = await this.#store.sync.localOnlyKeys(link.accountId, after, PUSH_STEP);
        if (step.length === 0) break;
        await queue(step.map((key) => key.id));
        after = (step.at(-1) as { id: number }).id;
        await nextTurn();
      }
    }
    if (queued > 0) this.#changeQueued(link.id);
    return queued;
  }

  // ---- keys, conflicts, outbox -------------------------------------------------------------

  /**
   * The link's keys with anything to show, read in bounded steps with a turn of the event loop
   * between them: a link that mirrors a million keys never holds other requests for long.
   */
  async keys(link: SyncLink): Promise<SyncKeyDto[]> {
    const dtos: SyncKeyDto[] = [];
    let after: number | null = 0;
    while (after !== null) {
      if (after > 0) await nextTurn();
      const step = await this.#store.sync.keyStatesWithNewsIn(link.id, after, STEP_KEY_IDS);
      for (const state of step.states) {
        const dto = await this.#keyDto(state);
        if (dto) dtos.push(dto);
      }
      after = step.next;
    }
    return dtos;
  }

  async #keyDto(state: SyncKeyState): Promise<SyncKeyDto | undefined> {
    const local = await this.#store.apiKeys.byId(state.apiKeyId);
    if (!local) return undefined;
    const mine = await this.#store.sync.entriesOfKey(state.apiKeyId);
    const failed = mine.find((entry) => entry.failed);
    const pendingFields = [
      ...new Set(mine.filter((entry) => !entry.failed).flatMap((entry) => entry.fields)),
    ];
    const inConflict = Object.entries(state.conflict ?? {});
    // Who made the local change: the key's own audit history, read only for a key in conflict.
    const history =
      inConflict.length > 0
        ? (
            await this.#store.audit.page({
              managerId: local.accountId,
              accountId: local.accountId,
              key: local.key,
              limit: LOCAL_HISTORY_READ,
            })
          ).entries
        : [];
    const conflicts = inConflict.map(([name, theirs]) => {
      const field = name as SyncedField;
      const mineChange = fieldChangeOf(history, field);
      const origin = state.conflictOrigin?.[field];
      return {
        field,
        mine: apiValueOf(field, local),
        theirs: apiValueOf(field, { ...local, [field]: theirs } as Fields),
        mineChange: mineChange && { by: mineChange.by, at: formatApiDateTime(mineChange.at) },
        theirsChange: origin
          ? { seenAt: formatApiDateTime(origin.seenAt), by: origin.by, at: time(origin.at) }
          : null,
      };
    });
    return {
      key: local.key,
      name: local.name,
      remoteKey: state.remoteKey,
      state:
        conflicts.length > 0
          ? "conflict"
          : failed
            ? "failed"
            : state.remoteMissing
              ? "remote-missing"
              : pendingFields.length > 0 || state.remoteKey === null
                ? "pending"
                : "synced",
      conflicts,
      pendingFields,
      error: failed?.lastError ?? null,
    };
  }

  /**
   * Settles one field's conflict. "theirs": the remote's value is written locally. "mine": the
   * local value is queued to overwrite the remote's. validFrom and validTo are one window and are
   * settled together.
   */
  async resolve(
    link: SyncLink,
    key: string,
    field: SyncedField,
    take: "mine" | "theirs",
    origin?: AuditOrigin,
  ): Promise<SyncKeyDto> {
    const local = await this.#store.apiKeys.get(link.accountId, key);
    const state = local && (await this.#store.sync.keyState(local.id));
    if (!local || !state || state.linkId !== link.id) throw notFound(`no linked key ${key} in this link`);
    if (!state.conflict || !(field in state.conflict)) {
      throw conflict(`key ${key} has no conflict on ${field}; reload to see its current state`);
    }
    const fields: SyncedField[] =
      field === "validFrom" || field === "validTo"
        ? (["validFrom", "validTo"] as SyncedField[]).filter((f) => state.conflict && f in state.conflict)
        : [field];
    await this.#store.write(async (tx) => {
      const current = await tx.sync.keyState(local.id);
      const stored = await tx.apiKeys.byId(local.id);
      if (!current?.conflict || !current.base || !stored) return;
      const theirs = { ...stored, ...(current.conflict as Partial<Fields>) } as Fields;
      let base = current.base;
      for (const f of fields) base = withField(base, f, theirs);
      // From the value that was here to the value that wins, whichever side's it is.
      const [from, to] = take === "theirs" ? [stored, theirs] : [theirs, stored];
      const changes = Object.fromEntries(
        Object.entries(fieldChanges(from, to)).filter(([f]) => (fields as string[]).includes(f)),
      );
      await tx.audit.append({
        at: this.#now(),
        accountId: stored.accountId,
        ...(origin ?? { actor: "unknown", channel: "api", address: null, reason: null }),
        action: "sync-resolve",
        key: stored.key,
        changes,
      });
      if (take === "theirs") {
        let next: Fields = stored;
        for (const f of fields) next = withField(next, f, theirs);
        await tx.apiKeys.update(stored, next, this.#now());
        await tx.sync.dropFields(local.id, fields);
      } else {
        // The local change waits in the outbox already, held by the conflict: ending the conflict
        // releases it. Only a field no queued entry carries (its change was refused, or dropped)
        // is queued again, so the outbox never holds the same change twice.
        const queued = new Set(
          (await tx.sync.entriesOfKey(local.id))
            .filter((entry) => !entry.failed && entry.kind === "update")
            .flatMap((entry) => entry.fields),
        );
        const missing = fields.filter((f) => !queued.has(f));
        if (missing.length > 0) {
          await tx.sync.enqueue({
            linkId: link.id,
            apiKeyId: local.id,
            kind: "update",
            fields: missing,
            now: this.#now(),
          });
        }
      }
      await tx.sync.setBase(local.id, base);
      const left = { ...current.conflict };
      for (const f of fields) delete left[f];
      await tx.sync.setConflict(local.id, left);
    });
    if (take === "mine") this.#changeQueued(link.id);
    const after = await this.#store.sync.keyState(local.id);
    const dto = after && (await this.#keyDto(after));
    return (
      dto ?? {
        key,
        name: local.name,
        remoteKey: state.remoteKey,
        state: "synced",
        conflicts: [],
        pendingFields: [],
        error: null,
      }
    );
  }

  /** The link's outbox in order, read in steps like keys(). */
  async outbox(link: SyncLink): Promise<SyncOutboxEntryDto[]> {
    const dtos: SyncOutboxEntryDto[] = [];
    let after = 0;
    for (;;) {
      const entries = await this.#store.sync.entriesAfter(link.id, after, STEP_ENTRIES);
      for (const entry of entries) dtos.push(await this.#entryDto(entry));
      if (entries.length < STEP_ENTRIES) return dtos;
      after = (entries[entries.length - 1] as OutboxEntry).id;
      await nextTurn();
    }
  }

  async #entryDto(entry: OutboxEntry): Promise<SyncOutboxEntryDto> {
    const state = await this.#store.sync.keyState(entry.apiKeyId);
    const conflicted = new Set(Object.keys(state?.conflict ?? {}));
    return {
      id: entry.id,
      key: (await this.#store.apiKeys.keyIdOf(entry.apiKeyId)) ?? "",
      kind: entry.kind,
      fields: entry.fields,
      heldFields: entry.fields.filter((field) => conflicted.has(field)),
      attempts: entry.attempts,
      failed: entry.failed,
      lastError: entry.lastError,
      createdAt: formatApiDateTime(entry.createdAt),
    };
  }

  async #entryOf(link: SyncLink, entryId: number): Promise<OutboxEntry> {
    const entry = await this.#store.sync.entry(entryId);
    if (!entry || entry.linkId !== link.id)
      throw notFound(`no outbox entry ${entryId} in sync link ${link.id}`);
    return entry;
  }

  async retryEntry(link: SyncLink, entryId: number): Promise<SyncOutboxEntryDto> {
    await this.#entryOf(link, entryId);
    await this.#store.write((tx) => tx.sync.retry(entryId));
    this.#changeQueued(link.id);
    return await this.#entryDto(await this.#entryOf(link, entryId));
  }

  /** Drops a change the remote refused; the local key keeps its value. */
  async discardEntry(link: SyncLink, entryId: number): Promise<void> {
    const entry = await this.#entryOf(link, entryId);
    if (!entry.failed)
      throw conflict(`outbox entry ${entryId} is still queued; only a failed entry can be discarded`);
    await this.#store.write(async (tx) => {
      if (entry.kind === "create") {
        // The remote never got the key: it stays here as a local-only key.
        const ofKey = await tx.sync.entriesOfKey(entry.apiKeyId);
        await tx.sync.deleteEntries(ofKey.map((other) => other.id));
        await tx.sync.deleteKeyState(entry.apiKeyId);
      } else {
        await tx.sync.deleteEntries([entryId]);
      }
    });
  }
}
