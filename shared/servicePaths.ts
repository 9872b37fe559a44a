/**
 * The key service's routes, spelled once for the service that declares them (Fastify's syntax,
 * `:name` a path parameter) and the client that calls them (servicePath fills the parameters in).
 * The sync routes have their own in shared/sync.ts.
 */
export const SERVICE_ROUTES = {
  apiKeys: "/settings/1/accounts/:accountKey/api-keys",
  apiKey: "/settings/1/accounts/:accountKey/api-keys/:key",
  /** A Keydesk extension: how many keys of an account match the list's filters. */
  apiKeyCount: "/local/1/accounts/:accountKey/api-keys/count",
  /** A Keydesk extension: a key's calls per hour (48 hours) and per UTC day (30 days). */
  apiKeyUsageSeries: "/local/1/accounts/:accountKey/api-keys/:key/usage-series",
  tfaApiKey: "/2fa/:version/api-key",
  localAccounts: "/local/1/accounts",
  localAudit: "/local/1/audit",
  localPins: "/local/1/pins",
  localPinsStream: "/local/1/pins/stream",
  tfaApplications: "/2fa/2/applications",
  tfaApplication: "/2fa/2/applications/:appId",
  tfaTemplates: "/2fa/2/applications/:appId/messages",
  tfaTemplate: "/2fa/2/applications/:appId/messages/:msgId",
  tfaVerifications: "/2fa/2/applications/:appId/verifications",
  tfaPin: "/2fa/2/pin",
  /** The provider's IBSSO session: POST creates one, DELETE (with its token) ends it. */
  authSession: "/auth/1/session",
} as const;

/** The names of a route's `:name` parameters. */
type ParamsOf<Route extends string> = Route extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamsOf<`/${Rest}`>
  : Route extends `${string}:${infer Name}`
    ? Name
    : never;

/** A route's path with its parameters filled in, each percent-encoded. */
export function servicePath<Route extends string>(
  route: Route,
  ...[params]: [ParamsOf<Route>] extends [never] ? [] : [Record<ParamsOf<Route>, string>]
): string {
  const values = (params ?? {}) as Record<string, string>;
  return route.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name] as string));
}
