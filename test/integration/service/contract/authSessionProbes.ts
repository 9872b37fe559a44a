import { SERVICE_ROUTES } from "../../../../shared/servicePaths.ts";
import { OWNER, PASSWORDS } from "./contractWorld.ts";
import type { Prober } from "./prober.ts";

const SESSION = SERVICE_ROUTES.authSession;

/**
 * IBSSO sessions: a login with the owner's username and password in the body (the SDK's
 * `Authorization: undefined` with it), its refusals, the token used on a 2FA route, and its end.
 * One wrong password only: the failed sign-in throttle is driven by probeThrottle, on its own address.
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
  await prober.probe(401, {
    method: "POST",
    path: SESSION,
    authorization: "",
    body: { ...credentials, password: "not the password" },
  });
  await prober.ok({ path: SERVICE_ROUTES.tfaApplications, authorization: `IBSSO ${token}` });
  await prober.probe(204, { method: "DELETE", path: SESSION, authorization: `IBSSO ${token}` });
  await prober.probe(401, { method: "DELETE", path: SESSION, authorization: `IBSSO ${token}` });
}
