import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Channel } from "../../../shared/tfa.ts";
import type { RefusalReason } from "../domain/keyAuthorization.ts";
import { REFUSAL_REASONS } from "../domain/keyUsage.ts";
import type { KeyLister } from "../keyListing.ts";
import type { PoolCounts } from "../serviceStorage.ts";
import type { CacheLookups, ChangeFeed } from "../store/store.ts";
import {
  type CounterCell,
  counterCell,
  type HistogramCell,
  histogramCell,
  observeInto,
  TalliedHistogram,
  talliedCounter,
} from "./talliedMetrics.ts";

/**
 * The key service's Prometheus metrics (docs/metrics.md): one Registry per running service,
 * never prom-client's global one (tests run many services in one process). Labels name routes,
 * methods, statuses, outcomes and rules, never a key, a publicApiKey, an account or a username.
 * This module loads prom-client (about 0.1 s): only a service that serves metrics imports it.
 */

/** How an App-authorized call ended: allowed, refused by a rule, or refused because the key is not known. */
export type AuthorizationOutcome = "allowed" | RefusalReason | "unknown-key";

/** From half a millisecond (an App-authorized call from memory) to the request timeout. */
const REQUEST_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** A change is heard within milliseconds; seconds mean a LISTEN connection that lags or a clock that is off. */
const LAG_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** A run pulls and pushes over the network: up to the remote's timeouts on every page. */
const SYNC_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

type RequestLabel = "route" | "method" | "status";
/** Records one answered request of a route: its method, status and duration in seconds. */
export type RouteRecorder = (method: string, status: number, seconds: number) => void;

/** Where the metrics read what is measured at scrape time. */
export interface MetricsSources {
  /** The PostgreSQL pool; absent on SQLite. */
  pool?: PoolCounts;
  changes: ChangeFeed;
  lister: KeyLister;
  /** The store's account cache (PostgreSQL's replicas keep one); absent on SQLite. */
  accountLookups?: CacheLookups;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  /** Lookups of the App authorization's key cache and of the PIN status cache (ReadThroughCache). */
  readonly appKeyLookups: CacheLookups = { hits: 0, misses: 0 };
  readonly pinStatusLookups: CacheLookups = { hits: 0, misses: 0 };
  #accountLookups: CacheLookups | undefined;
  readonly #requestCells: HistogramCell<RequestLabel>[] = [];
  readonly #routes = new Map<string, RouteRecorder>();
  readonly #authorizations: Record<AuthorizationOutcome, CounterCell<"outcome" | "rule">>;
  readonly #storageFailures: Counter;
  readonly #pinsSent: Counter<"channel" | "kind">;
  readonly #syncRuns: Counter<"outcome" | "reason">;
  readonly #syncSeconds: Histogram<"outcome">;
  #stopHearing: (() => void) | undefined;

  constructor() {
    const registers = [this.registry];
    // Event-loop delay, CPU, memory, heap, handles: Node's standard names, which dashboards know.
    collectDefaultMetrics({ register: this.registry });

    const labelNames = ["route", "method", "status"] as const;
    talliedCounter(
      this.registry,
      {
        labelNames,
        name: "keydesk_http_requests_total",
        help: "HTTP requests answered, by route template (unmatched: no route), method and status",
      },
      () => this.#requestCells,
    );
    new TalliedHistogram(
      this.registry,
      {
        labelNames,
        name: "keydesk_http_request_duration_seconds",
        help: "Time from a request's arrival to its answer's end, by route template, method and status",
      },
      REQUEST_SECONDS,
      () => this.#requestCells,
    );

    const outcomes: AuthorizationOutcome[] = ["allowed", ...REFUSAL_REASONS, "unknown-key"];
    this.#authorizations = Object.fromEntries(
      outcomes.map((outcome) => [
        outcome,
        counterCell(outcome === "allowed" ? { outcome } : { outcome: "refused", rule: outcome }),
      ]),
    ) as Record<AuthorizationOutcome, CounterCell<"outcome" | "rule">>;
    talliedCounter(
      this.registry,
      {
        name: "keydesk_app_authorizations_total",
        help: "Calls authorized with Authorization: App <key>, by outcome (allowed, refused) and the rule that refused",
        labelNames: ["outcome", "rule"],
      },
      () => Object.values(this.#authorizations),
    );

    const lookups = (cache: string, counts: CacheLookups) => [
      { labels: { cache, result: "hit" }, count: counts.hits },
      { labels: { cache, result: "miss" }, count: counts.misses },
    ];
    talliedCounter(
      this.registry,
      {
        name: "keydesk_cache_lookups_total",
        help: "Lookups of the in-memory caches (app_keys: App authorization, pin_status: PIN status, accounts: Basic sign-ins' accounts on PostgreSQL) by result: hit, or miss (read from the database)",
        labelNames: ["cache", "result"],
      },
      () => [
        ...lookups("app_keys", this.appKeyLookups),
        ...lookups("pin_status", this.pinStatusLookups),
        ...(this.#accountLookups ? lookups("accounts", this.#accountLookups) : []),
      ],
    );

    this.#storageFailures = new Counter({
      name: "keydesk_storage_failures_total",
      help: "Requests answered 503 because the database failed (unreachable, damaged, disk full)",
      registers,
    });
    this.#pinsSent = new Counter({
      name: "keydesk_tfa_pins_sent_total",
      help: "PIN messages the 2FA simulator sent (and captured), by channel and kind (send, resend)",
      labelNames: ["channel", "kind"],
      registers,
    });
    this.#syncRuns = new Counter({
      name: "keydesk_sync_runs_total",
      help: "Sync link runs by outcome (success, failure) and, for failures, reason (credentials, throttled, unavailable, refused)",
      labelNames: ["outcome", "reason"],
      registers,
    });
    this.#syncSeconds = new Histogram({
      name: "keydesk_sync_run_duration_seconds",
      help: "Duration of sync link runs (pull and push) by outcome",
      labelNames: ["outcome"],
      buckets: SYNC_SECONDS,
      registers,
    });
    for (const outcome of ["success", "failure"]) this.#syncSeconds.zero({ outcome });
    this.#syncRuns.inc({ outcome: "success" }, 0);
  }

  /** Reads, when scraped, what its service's parts measure; once, by the service the metrics are of. */
  watch(sources: MetricsSources): void {
    const registers = [this.registry];
    const { lister, pool, changes } = sources;
    this.#accountLookups = sources.accountLookups;
    const workers = lister.workerCounts?.bind(lister);
    if (workers) {
      new Gauge({
        name: "keydesk_list_workers_running",
        help: "Key list worker threads started",
        registers,
        collect() {
          this.set(workers().running);
        },
      });
      new Gauge({
        name: "keydesk_list_workers_busy",
        help: "Key list worker threads reading a list, page or count now",
        registers,
        collect() {
          this.set(workers().busy);
        },
      });
    }

    if (pool) {
      const gauge = (name: string, help: string, read: () => number) =>
        new Gauge({
          name,
          help,
          registers,
          collect() {
            this.set(read());
          },
        });
      gauge("keydesk_db_pool_connections_in_use", "PostgreSQL connections lent to requests now", () =>
        Math.max(0, pool.totalCount - pool.idleCount),
      );
      gauge(
        "keydesk_db_pool_connections_idle",
        "PostgreSQL connections open and idle in the pool",
        () => pool.idleCount,
      );
      gauge(
        "keydesk_db_pool_connections_max",
        "The pool's connection limit (in_use reaching it makes requests wait)",
        () => pool.options.max ?? 10,
      );
      gauge(
        "keydesk_db_pool_waiting_requests",
        "Requests waiting for a PostgreSQL connection (a request waits 5 s at most, then is answered 503)",
        () => pool.waitingCount,
      );
    }

    if (changes.listening !== undefined) {
      new Gauge({
        name: "keydesk_change_feed_listening",
        help: "1 while the PostgreSQL LISTEN connection hears other replicas' changes; 0 while it reconnects (caches then read the database on every call)",
        registers,
        collect() {
          this.set(changes.listening ? 1 : 0);
        },
      });
    }
    const lag =
      changes.onChangesHeard &&
      new Histogram({
        name: "keydesk_cache_invalidation_lag_seconds",
        help: "Time from a replica sending its committed changes (its clock) to this replica hearing them on its LISTEN connection",
        buckets: LAG_SECONDS,
        registers,
      });
    this.#stopHearing =
      lag && changes.onChangesHeard?.((sentAt) => lag.observe(Math.max(0, Date.now() - sentAt) / 1000));
  }

  /**
   * The recorder of one route template's requests (the same one for every route registered with
   * that template: a path's methods may be several routes); its series appear as requests come.
   */
  route(route: string): RouteRecorder {
    let recorder = this.#routes.get(route);
    if (!recorder) {
      recorder = this.#recorderOf(route);
      this.#routes.set(route, recorder);
    }
    return recorder;
  }

  #recorderOf(route: string): RouteRecorder {
    const byMethod = new Map<string, Map<number, HistogramCell<RequestLabel>>>();
    const cells = this.#requestCells;
    return (method, status, seconds) => {
      let byStatus = byMethod.get(method);
      if (!byStatus) {
        byStatus = new Map();
        byMethod.set(method, byStatus);
      }
      let cell = byStatus.get(status);
      if (!cell) {
        cell = histogramCell({ route, method, status: String(status) }, REQUEST_SECONDS);
        byStatus.set(status, cell);
        cells.push(cell);
      }
      observeInto(cell, REQUEST_SECONDS, seconds);
    };
  }

  appAuthorization(outcome: AuthorizationOutcome): void {
    this.#authorizations[outcome].count++;
  }

  storageFailure(): void {
    this.#storageFailures.inc();
  }

  pinSent(channel: Channel, kind: "send" | "resend"): void {
    this.#pinsSent.inc({ channel: channel.toLowerCase(), kind });
  }

  syncRun(run: { ok: boolean; failure?: string | undefined; durationMs: number }): void {
    const outcome = run.ok ? "success" : "failure";
    this.#syncRuns.inc(run.ok ? { outcome } : { outcome, reason: run.failure ?? "unknown" });
    this.#syncSeconds.observe({ outcome }, run.durationMs / 1000);
  }

  /** The Prometheus text of every metric, and its Content-Type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  close(): void {
    this.#stopHearing?.();
  }
}
