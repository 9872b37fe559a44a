import { join } from "node:path";
import { formatApiDateTime } from "../../shared/datetime.ts";
import { REPO_ROOT, request } from "../harness/keyServiceProcess.ts";
import { closeUiSession, openUiSession } from "../harness/uiSession.ts";
import { callBridge } from "../harness/webHostProcess.ts";

/**
 * Makes the README's screenshot, docs/images/keys-view.png: the Keys view at 1280×800, light, on a
 * Local service holding a team's keys in every state, some of them used. Not a test (it asserts
 * nothing); run by hand after `npm run -s build`:
 *   node_modules/.bin/node test/e2e/keysViewScreenshot.ts
 */

const DAY = 24 * 3600_000;
const now = Date.now();
const session = await openUiSession({
  name: "keys-view-screenshot",
  context: { viewport: { width: 1280, height: 800 }, timezoneId: "Europe/Berlin", colorScheme: "light" },
});
try {
  const { host, page } = session;
  const bridge = <T = Record<string, unknown>>(method: string, args?: unknown) =>
    callBridge<T>(host, method, args ?? {});
  const keys: {
    name: string;
    permissions?: string[];
    validTo?: number;
    validFrom?: number;
    off?: boolean;
    calls?: number;
  }[] = [
    { name: "checkout-prod", calls: 5 },
    { name: "checkout-staging", calls: 2 },
    { name: "billing-backend", validTo: now + 90 * DAY, calls: 3 },
    { name: "login-2fa-web", permissions: ["TFA"], calls: 4 },
    { name: "login-2fa-ios", permissions: ["TFA"], validTo: now + 3 * DAY, calls: 1 },
    { name: "partner-acme-reports", validTo: now - 12 * DAY },
    { name: "data-export-nightly", off: true },
    { name: "support-console", permissions: ["ALL", "TFA"], calls: 1 },
    { name: "mobile-push-relay", validFrom: now + 10 * DAY },
    { name: "analytics-ingest", calls: 2 },
  ];
  const profiles = await bridge<{ kind: string; baseUrl: string }[]>("profiles.list");
  const baseUrl = profiles.find((profile) => profile.kind === "local")?.baseUrl as string;
  for (const key of keys) {
    const created = await bridge<{ key: string; publicApiKey: string }>("keys.create", {
      accountKey: "_",
      request: {
        name: key.name,
        ...(key.permissions && { permissions: key.permissions }),
        ...(key.validTo && { validTo: formatApiDateTime(key.validTo) }),
        ...(key.validFrom && { validFrom: formatApiDateTime(key.validFrom) }),
      },
    });
    for (let i = 0; i < (key.calls ?? 0); i++)
      await request(baseUrl, { path: "/2fa/2/applications", authorization: `App ${created.publicApiKey}` });
    if (key.off) await bridge("keys.setEnabled", { accountKey: "_", key: created.key, enabled: false });
  }
  await page.goto(host.pageUrl);
  await page.getByTestId("key-row").filter({ hasText: "analytics-ingest" }).waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(REPO_ROOT, "docs/images/keys-view.png") });
} finally {
  await closeUiSession(session);
}
