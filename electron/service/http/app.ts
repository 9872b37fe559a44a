import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from "fastify";
import pino from "pino";
import { AuditHistory } from "../audit/auditHistory.ts";
import { AuditRetention, DEFAULT_AUDIT_RETENTION_DAYS } from "../audit/auditRetention.ts";
import { AppKeyAuthorizer } from "../auth/appKeyAuthorizer.ts";
import { BasicAuthenticator } from "../auth/basicAuthenticator.ts";
import { FailureThrottle, type ThrottleOptions } from "../auth/failureThrottle.ts";
import { IbssoAuthenticator } from "../auth/ibssoAuthenticator.ts";
import { SharedFailureThrottle } from "../auth/sharedFailureThrottle.ts";
import { VerifiedCredentials } from "../auth/verifiedCredentials.ts";
import { ApiError } from "../errors.ts";
import { KeyService } from "../keyService.ts";
import type { MetricsAllowList } from "../metrics/metricsAllowList.ts";
import type { ServiceMetrics } from "../metrics/serviceMetrics.ts";
import type { ServiceStorage } from "../serviceStorage.ts";
import { createTfaSimulator, type TfaSimulator } from "../tfa/tfaSimulator.ts";
import { UsageRecorder } from "../usage/usageRecorder.ts";
import { keyListWorkerUrl } from "../workerLister.ts";
import { type BasicGuard, requireBasicAccount } from "./basicAuthGuard.ts";
import { type CallerGuard, createCallerGuard } from "./callerGuard.ts";
import {
  type ConnectionLimits,
  capConnections,
  DEFAULT_CONNECTION_LIMITS,
  requestTimeoutOptions,
} from "./connectionLimits.ts";
import { sendApiError, toApiError } from "./errorReplies.ts";
import { refuseRequestsWithoutHost } from "./hostHeader.ts";
import { acceptJsonBodiesOnly, BODY_LIMIT_BYTES } from "./jsonBody.ts";
import { redactUrl, requestLogFields } from "./logRedaction.ts";
import { registerOpenApiGeneration } from "./openApiGeneration.ts";
import { openApiRoot } from "./openApiRoot.ts";
import { writeClientError } from "./parserRefusals.ts";
import { gated, gateProviderPaths } from "./providerPathGate.ts";
import { recordRequests, recordUnrouted } from "./requestMetrics.ts";
import { registerApiKeyRoutes } from "./routes/apiKeyRoutes.ts";
import { registerAuthSessionRoutes } from "./routes/authSessionRoutes.ts";
import { registerHealthRoutes } from "./routes/healthRoutes.ts";
import { registerLocalAccountRoutes } from "./routes/localAccountRoutes.ts";
import { registerLocalAuditRoutes } from "./routes/localAuditRoutes.ts";
import { registerLocalPinRoutes } from "./routes/localPinRoutes.ts";
import { registerMetricsRoute } from "./routes/metricsRoutes.ts";
import { registerOpenApiRoute } from "./routes/openApiRoute.ts";
import { registerTfaRoutes } from "./routes/tfaRoutes.ts";
import { drainUnreadBodies } from "./unreadBodies.ts";

export interface HttpAppOptions {
  /** pino level; "silent" turns logging off. Logs go to stderr. */
  logLevel?: string;
  /** Proxies whose X-Forwarded-For is trusted (addresses or CIDR ranges); none by default. */
  trustedProxies?: string[];
  throttle?: Partial<ThrottleOptions>;
  now?: () => number;
  /** Called for every route as it is registered (lets tests list the routes). */
  onRoute?: (route: RouteOptions) => void;
  /**
   * Parts added to the service by their own folders (sync with remote instances: electron/sync's
   * attachSync), called once the service's own routes are registered, before it listens.
   */
  extensions?: readonly ((service: KeyServiceApp<ServiceStorage>) => void)[];
  /** Request timeout and connection cap (connectionLimits.ts); each defaults on its own. */
  connectionLimits?: Partial<ConnectionLimits>;
  /**
   * The key list worker's module (keyListWorker.ts); found beside the service when run from
   * source. null reads lists in the service's own thread, in steps.
   */
  keyListWorker?: URL | null;
  /** Whether App-authorized calls are counted per key (`include=usage`); on by default. */
  recordUsage?: boolean;
  /** How often the usage of keys is written (UsageRecorder); 1 s by default. */
  usageIntervalMs?: number;
  /** Days the audit history keeps an entry; 365 by default. */
  auditRetentionDays?: number;
  /**
   * Serves Prometheus metrics at /metrics to the addresses of `allow` (serve --metrics); off when
   * absent. `collector` is this service's own ServiceMetrics, made by the caller, which loads
   * prom-client only when metrics are on.
   */
  metrics?: { collector: ServiceMetrics; allow: MetricsAllowList };
}

export interface KeyServiceApp<S extends ServiceStorage = ServiceStorage> {
  app: FastifyInstance;
  keys: KeyService;
  /** The local 2FA simulator (its event fan-out is what the PIN stream subscribes to). */
  tfa: TfaSimulator;
  /** Where its data lives (a SQLite data directory or a PostgreSQL database), open. */
  data: S;
  /** The Basic-credentials guard of management routes, for routes an extension adds. */
  requireBasic: BasicGuard;
  /** Deletes audit entries past the retention (at start and once a day). */
  auditRetention: AuditRetention;
  /** The service's metrics, when it serves them (an extension counts its own work there). */
  metrics: ServiceMetrics | undefined;
}

/** The key service's HTTP application over its open storage (SQLite data directory or PostgreSQL). */
export function buildHttpApp<S extends ServiceStorage>(
  data: S,
  options: HttpAppOptions = {},
): KeyServiceApp<S> {
  const logger = pino(
    {
      level: options.logLevel ?? "info",
      serializers: {
        req: requestLogFields,
        err: (error: Error & { code?: string }) => ({
          type: error.name,
          message: error.message,
          code: error.code,
        }),
      },
    },
    pino.destination({ fd: 2, sync: false }),
  );
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits };
  let requireCaller: CallerGuard | undefined;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    ...requestTimeoutOptions(limits),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: options.trustedProxies && options.trustedProxies.length > 0 ? options.trustedProxies : false,
    // While stopping, requests on open connections are still served (before the database closes)
    // rather than answered with Fastify's own 503 body, which is not the service's error shape.
    return503OnClosing: false,
    // Provider SDKs call paths such as `/2fa/2/pin/?ncNeeded=true`: a trailing slash names the same route.
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
    clientErrorHandler: writeClientError,
    frameworkErrors: (error, request, reply) => {
      const answer = (failure: unknown = error) => {
        sendApiError(reply, toApiError(failure));
        if (options.metrics) recordUnrouted(options.metrics.collector, request, reply);
      };
      // A provider path the router refused is still authorized first (providerPathGate.ts); the
      // guard exists before the server listens, so no request finds it missing.
      gated(requireCaller as CallerGuard, request, reply, answer, (failure) => {
        // Authorization itself failed (the store did not answer): said and logged as the error handler does.
        request.log.error({ err: failure, url: redactUrl(request.url) }, "request failed");
        answer(failure);
      });
    },
  });

  const workerUrl = options.keyListWorker === undefined ? keyListWorkerUrl() : options.keyListWorker;
  const lister = data.keyLister(workerUrl);
  const metrics = options.metrics?.collector;
  metrics?.watch({
    pool: data.pool,
    changes: data.store.changes,
    lister,
    accountLookups: data.store.accountLookups,
  });
  // Before any route is registered: each route's requests are counted by a hook of its own.
  if (metrics) recordRequests(app, metrics);
  const usage =
    options.recordUsage === false
      ? undefined
      : new UsageRecorder(data.store, {
          ...(options.usageIntervalMs !== undefined && { intervalMs: options.usageIntervalMs }),
          ...(options.now && { now: options.now }),
          onError: (error) =>
            app.log.warn({ err: error }, "the usage of keys could not be written; trying again"),
        });
  const keys = new KeyService(data, options.now, lister, usage);
  app.addHook("onClose", async () => {
    await keys.close();
    await usage?.close();
    metrics?.close();
  });
  const throttle = new FailureThrottle(options.throttle);
  // Replicas of one database count an address's failed sign-ins once (in the store); one process
  // on SQLite counts them in memory, sparing a database write (a disk sync) per failed attempt.
  const basic = new BasicAuthenticator(
    data.store.accounts,
    throttle,
    new VerifiedCredentials(),
    undefined,
    data.shared ? new SharedFailureThrottle(data.store, throttle.rule, options.throttle?.now) : undefined,
  );
  const appKeys = new AppKeyAuthorizer(data.store.changes, data.store.apiKeys, data.store.accounts, {
    ...((usage || metrics) && {
      onOutcome: (key, outcome, call) => {
        usage?.record(key, outcome, call.now, call.clientAddress);
        metrics?.appAuthorization(outcome);
      },
    }),
    ...(metrics && {
      onUnknownKey: () => metrics.appAuthorization("unknown-key"),
      lookups: metrics.appKeyLookups,
    }),
  });
  const sessions = new IbssoAuthenticator(data.store, data.store.accounts, options.now);
  const requireBasic: BasicGuard = (request) => requireBasicAccount(request, basic, appKeys, sessions);
  requireCaller = createCallerGuard(basic, appKeys, sessions, options.now);
  gateProviderPaths(app, requireCaller);

  capConnections(app.server, limits, app.log);
  refuseRequestsWithoutHost(app);
  acceptJsonBodiesOnly(app);
  drainUnreadBodies(app);
  // Answers sent while the service stops close their connection: otherwise a keep-alive client
  // whose request was in flight at the stop would hold the stop open until its idle timeout.
  let stopping = false;
  app.addHook("preClose", (done) => {
    stopping = true;
    done();
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (stopping) reply.header("connection", "close");
    done(null, payload);
  });
  app.setErrorHandler((error, request, reply) => {
    const failure = data.failure(error);
    if (failure !== undefined) metrics?.storageFailure();
    const apiError = failure === undefined ? toApiError(error) : new ApiError("SERVICE_UNAVAILABLE", failure);
    if (apiError.status >= 500)
      request.log.error({ err: error, url: redactUrl(request.url) }, "request failed");
    return sendApiError(reply, apiError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0];
    return sendApiError(reply, new ApiError("NOT_FOUND", `no such route: ${request.method} ${path}`));
  });

  registerOpenApiGeneration(app, openApiRoot());
  if (options.onRoute) app.addHook("onRoute", options.onRoute);
  registerApiKeyRoutes(app, keys, requireBasic);
  const tfa = createTfaSimulator(
    data.store,
    options.now,
    metrics && {
      onPinSent: (channel, kind) => metrics.pinSent(channel, kind),
      statusLookups: metrics.pinStatusLookups,
    },
  );
  registerTfaRoutes(app, tfa, requireCaller);
  registerAuthSessionRoutes(app, basic, sessions);
  registerLocalPinRoutes(app, tfa, requireBasic);
  registerLocalAccountRoutes(app, data.store.accounts, requireBasic);
  registerLocalAuditRoutes(app, new AuditHistory(data.store, keys), requireBasic);
  const auditRetention = new AuditRetention(data.store, {
    days: options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS,
    ...(options.now && { now: options.now }),
    onError: (error) =>
      app.log.warn({ err: error }, "old audit entries could not be deleted; trying again tomorrow"),
  });
  auditRetention.start();
  app.addHook("onClose", () => auditRetention.close());
  registerOpenApiRoute(app);
  if (metrics && options.metrics) registerMetricsRoute(app, metrics, options.metrics.allow);
  registerHealthRoutes(app, { storeAnswers: () => data.store.health.ready(), stopping: () => stopping });
  const service: KeyServiceApp<S> = { app, keys, tfa, auditRetention, data, requireBasic, metrics };
  for (const extend of options.extensions ?? []) extend(service);
  return service;
}
