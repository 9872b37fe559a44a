import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import pino from "pino";
import { BasicAuthenticator } from "../auth/basicAuthenticator.ts";
import { FailureThrottle, type ThrottleOptions } from "../auth/failureThrottle.ts";
import { VerifiedCredentials } from "../auth/verifiedCredentials.ts";
import type { DataDir } from "../dataDir.ts";
import { ApiError } from "../errors.ts";
import { KeyService } from "../keyService.ts";
import { sendApiError, toApiError } from "./errorReplies.ts";
import { acceptJsonBodiesOnly, BODY_LIMIT_BYTES } from "./jsonBody.ts";
import { redactUrl, requestLogFields } from "./logRedaction.ts";
import { registerApiKeyRoutes } from "./routes/apiKeyRoutes.ts";
import { registerOpenApiRoute } from "./routes/openApiRoute.ts";

export interface HttpAppOptions {
  /** pino level; "silent" turns logging off. Logs go to stderr. */
  logLevel?: string;
  /** Proxies whose X-Forwarded-For is trusted (addresses or CIDR ranges); none by default. */
  trustedProxies?: string[];
  throttle?: Partial<ThrottleOptions>;
  now?: () => number;
}

export interface KeyServiceApp {
  app: FastifyInstance;
  keys: KeyService;
}

/** The key service's HTTP application over an open data directory. */
export function buildHttpApp(data: DataDir, options: HttpAppOptions = {}): KeyServiceApp {
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
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: options.trustedProxies && options.trustedProxies.length > 0 ? options.trustedProxies : false,
    return503OnClosing: true,
    routerOptions: { maxParamLength: 500 },
    frameworkErrors: (error, _request, reply) => {
      sendApiError(reply, toApiError(error));
    },
  });

  const keys = new KeyService(data, options.now);
  const basic = new BasicAuthenticator(
    data.accounts,
    new FailureThrottle(options.throttle),
    new VerifiedCredentials(),
  );

  acceptJsonBodiesOnly(app);
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500)
      request.log.error({ err: error, url: redactUrl(request.url) }, "request failed");
    return sendApiError(reply, apiError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0];
    return sendApiError(reply, new ApiError("NOT_FOUND", `no such route: ${request.method} ${path}`));
  });

  registerApiKeyRoutes(app, keys, basic);
  registerOpenApiRoute(app);
  return { app, keys };
}
