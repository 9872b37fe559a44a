/**
 * The text of the 403 an API key (or an IBSSO token) gets on a route that takes an account's Basic
 * credentials only.
 * It names what the route is, so that a caller of the PIN inbox or the audit history is not told
 * about managing API keys.
 */

const KEY_MANAGEMENT = /^\/settings\/1\/|^\/2fa\/[^/]+\/api-key$|^\/local\/1\/accounts\/[^/]+\/api-keys\//;

const ROUTES: [RegExp, string][] = [
  [/^\/local\/1\/pins(\/|$)/, "the PIN inbox takes"],
  [/^\/local\/1\/audit(\/|$)/, "the audit history takes"],
  [/^\/local\/1\/sync(\/|$)/, "sync links take"],
  [/^\/local\/1\/accounts(\/|$)/, "accounts are managed with"],
];

export function apiKeyRefusalText(url: string): string {
  return refusalText(url, "an API key");
}

/** The same for an IBSSO session's token, which stands for Basic credentials on the provider's APIs only. */
export function ibssoRefusalText(url: string): string {
  return refusalText(url, "an IBSSO session token");
}

function refusalText(url: string, credential: string): string {
  const path = url.split("?")[0] ?? url;
  if (KEY_MANAGEMENT.test(path))
    return `${credential} cannot manage API keys; use the account's Basic credentials`;
  const what = ROUTES.find(([pattern]) => pattern.test(path))?.[1] ?? "this route takes";
  return `${what} the account's Basic credentials only, not ${credential}`;
}
