import type { KeyServiceClient } from "../client/keyServiceClient.ts";
import { classifyRemoteFailure } from "./remoteFailure.ts";

/**
 * The check a new link's remote passes before the link is stored: one key lookup by a name no
 * key has (`GET …/accounts/{accountKey}/api-keys?name=…`), cheap on any service that implements
 * the API, which answers three questions at once — is the remote reachable (and the API), does it
 * accept the credentials, and may they manage the remote account (a service answers 404 both for
 * an account that does not exist and for one the credentials do not manage, so those two are one
 * answer here).
 */

export type LinkCheckPart = "reachable" | "credentials" | "account";

export type LinkCheck = { ok: true } | { ok: false; part: LinkCheckPart; text: string };

/** A name no key is given: the lookup answers an empty list on a remote where everything is right. */
const LINK_CHECK_NAME = "keydesk link check";

export async function checkLinkRemote(client: KeyServiceClient, accountKey: string): Promise<LinkCheck> {
  try {
    await client.list(accountKey, { name: LINK_CHECK_NAME });
    return { ok: true };
  } catch (error) {
    return linkCheckFailure(client.baseUrl, accountKey, error);
  }
}

/**
 * Which part of the check failed, in words the admin can act on.
 * @internal Exported for tests.
 */
export function linkCheckFailure(baseUrl: string, accountKey: string, error: unknown): LinkCheck {
  const failure = classifyRemoteFailure(error);
  const account = accountKey === "_" ? "the credentials' own account" : `account ${accountKey}`;
  switch (failure.kind) {
    case "credentials":
      return {
        ok: false,
        part: "credentials",
        text: `${baseUrl} refused the username or password; check them (${failure.text.replace(/^the remote refused the credentials \((.*)\)$/, "$1")})`,
      };
    case "throttled":
      return {
        ok: false,
        part: "credentials",
        text: `${baseUrl} refuses sign-ins for now (${failure.text}); try again later`,
      };
    case "unavailable":
      return {
        ok: false,
        part: "reachable",
        text: `${baseUrl} is not reachable as the key-management API: ${failure.text}`,
      };
    case "refused":
      if (failure.status === 404 && /no such route/i.test(failure.text)) {
        return {
          ok: false,
          part: "reachable",
          text: `${baseUrl} answers, but has no key-management API at that address (${failure.text}); check the base URL`,
        };
      }
      if (failure.status === 404 || failure.status === 403) {
        return {
          ok: false,
          part: "account",
          text: `${baseUrl} accepted the credentials but they may not manage the keys of ${account} there (it does not exist, or is not theirs: ${failure.text}); choose the remote account`,
        };
      }
      return {
        ok: false,
        part: "reachable",
        text: `${baseUrl} answered the check with an error (${failure.text}); check the base URL`,
      };
  }
}
