import { SERVICE_ROUTES } from "../../../../shared/servicePaths.ts";
import { OWNER, PASSWORDS } from "./contractWorld.ts";
import type { Prober } from "./prober.ts";

const SESSION = SERVICE_ROUTES.authSession;

/**
 * IBSSO sessions: a login with the owner's username and password in the body (the SDK's
 * `Authorization: undefined` with it), an invalid body, the token used on a 2FA route, and its end.
 * A wrong password (401, 429) is probeThrottle's: every failed sign-in of the suite takes from the
 * one address the service sees behind the fixture's proxy, which those probes count on.
 */
export async function probeAuthSessions(prober: Prober): Promise<void> {
  const credentials = { username: OWNER, password: PASSWORDS[OWNER] as string };
  const { token } = await prober.ok<{ token: string }>({
    method: "POST",
    path: SESSION,
    authorization: "undefined",
    body: credentials,
  });
  await prober.probe(400, { method: "POST", path: SESSION, authorization: "", body: { username: OWNER } });
  await prober.ok({ path: SERVICE_ROUTES.tfaApplications, authorization: `IBSSO ${token}` });
  await prober.probe(204, { method: "DELETE", path: SESSION, authorization: `IBSSO ${token}` });
  await prober.probe(401, { method: "DELETE", path: SESSION, authorization: `IBSSO ${token}` });
}
