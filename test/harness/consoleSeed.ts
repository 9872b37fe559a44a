import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { basic, request, type ServeProcess } from "./keyServiceProcess.ts";
import { callBridge, type WebHostProcess } from "./webHostProcess.ts";

/**
 * A console as an admin has it after a few weeks: about 40 keys of every state (enabled,
 * disabled, expired, not yet valid, expiring soon, TFA only, IP-restricted) with realistic
 * names, two sub-accounts, 2FA applications with PINs in the inbox, and a sync link to a
 * remote whose one key is in conflict. Everything goes through the bridge or the services'
 * HTTP APIs, as the app and apps under test would.
 */

const SERVICES = [
  "checkout",
  "billing",
  "notifications",
  "search",
  "reporting",
  "mobile-app",
  "partner-portal",
  "ci-runner",
];
const STAGES = ["production", "staging", "dev laptop", "load test", "integration tests"];

/** `days` from now in the service's datetime shape (UTC). */
export function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().replace("Z", "+0000");
}

export interface SeededConsole {
  local: { baseUrl: string; username: string; password: string };
  subAccounts: { accountKey: string; username: string }[];
  applications: { applicationId: string; name: string }[];
  linkId: number;
  conflictKeyName: string;
  /** A remote profile whose service does not answer. */
  downProfileId: string;
}

/** An address where no service listens: a port just opened by this process, then closed. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

export async function seedConsole(
  host: WebHostProcess,
  remote: ServeProcess,
  remoteUser: { username: string; password: string },
): Promise<SeededConsole> {
  const bridge = <T>(method: string, args?: unknown) => callBridge<T>(host, method, args);
  const local = await bridge<SeededConsole["local"]>("profiles.revealLocalCredentials");
  const owner = basic(local.username, local.password);
  const post = async <T>(baseUrl: string, path: string, body: unknown, authorization = owner): Promise<T> => {
    const answer = await request(baseUrl, { method: "POST", path, authorization, body });
    assert.equal(answer.status, 200, `${path}: ${answer.text}`);
    return answer.json as T;
  };

  for (let i = 0; i < 38; i++) {
    const service = SERVICES[i % SERVICES.length] as string;
    const stage = STAGES[i % STAGES.length] as string;
    const request: Record<string, unknown> = { name: `${service} ${stage} ${1 + Math.floor(i / 8)}` };
    if (i % 7 === 3) request.validTo = inDays(-3); // expired
    if (i % 7 === 5) request.validTo = inDays(4); // expiring soon
    if (i % 11 === 6 && i % 7 !== 3) request.validFrom = inDays(10); // not yet valid
    if (i % 6 === 2) request.permissions = ["TFA"];
    if (i % 9 === 4) request.allowedIPs = ["10.20.0.0/16", "192.168.1.17", "2001:db8::/48"];
    const created = await bridge<{ key: string }>("keys.create", { request });
    if (i % 8 === 1) await bridge("keys.setEnabled", { accountKey: "_", key: created.key, enabled: false });
  }
  await bridge("keys.create", {
    request: {
      name: "a very long key name that an admin typed to say exactly which backend job uses this key",
    },
  });

  const subAccounts: SeededConsole["subAccounts"] = [];
  for (const username of ["emea-support", "partner-acme"]) {
    const account = await bridge<{ accountKey: string; username: string }>("accounts.addSubAccount", {
      username,
      password: `${username}-password-1`,
    });
    subAccounts.push(account);
    for (const name of ["support backend", "webhook signer", "reporting export"]) {
      await bridge("keys.create", {
        accountKey: account.accountKey,
        request: { name: `${username} ${name}` },
      });
    }
  }

  const { publicApiKey } = await post<{ publicApiKey: string }>(
    local.baseUrl,
    "/settings/1/accounts/_/api-keys",
    {
      name: "login backend (2FA)",
      permissions: ["TFA"],
    },
  );
  const applications: SeededConsole["applications"] = [];
  for (const [name, ttl, numbers] of [
    ["Customer login", "15m", ["41793026731", "41793026732", "4915112345678"]],
    ["Password reset", "20m", ["41761234567", "12025550143"]],
  ] as const) {
    const { applicationId } = await post<{ applicationId: string }>(local.baseUrl, "/2fa/2/applications", {
      name,
      configuration: { pinTimeToLive: ttl, pinAttempts: 5 },
    });
    const { messageId } = await post<{ messageId: string }>(
      local.baseUrl,
      `/2fa/2/applications/${applicationId}/messages`,
      {
        messageText: `Your ${name.toLowerCase()} code is {{pin}}. It expires in ${ttl}.`,
        pinType: "NUMERIC",
        pinLength: 6,
      },
    );
    applications.push({ applicationId, name });
    for (const to of numbers) {
      await post(local.baseUrl, "/2fa/2/pin", { applicationId, messageId, to }, `App ${publicApiKey}`);
    }
  }

  // The sync link: the remote's keys come over, then one is renamed on both sides: a conflict.
  const remoteAuth = basic(remoteUser.username, remoteUser.password);
  for (const name of ["team shared gateway", "team nightly export"]) {
    await post(remote.url, "/settings/1/accounts/_/api-keys", { name }, remoteAuth);
  }
  const profile = await bridge<{ id: string }>("profiles.add", {
    name: "Team staging",
    baseUrl: remote.url,
    username: remoteUser.username,
    password: remoteUser.password,
  });
  const link = await bridge<{ id: number }>("sync.links.create", {
    localAccountKey: "_",
    profileId: profile.id,
    remoteAccountKey: "_",
    intervalSeconds: 3600,
  });
  await bridge("sync.run", { id: link.id });
  const keyOn = async (baseUrl: string, authorization: string, name: string) => {
    const answer = await request(baseUrl, { path: "/settings/1/accounts/_/api-keys", authorization });
    const found = (answer.json as { apiKeys: { key: string; name: string }[] }).apiKeys.find(
      (key) => key.name === name,
    );
    assert.ok(found, `${name} on ${baseUrl}`);
    return found.key;
  };
  const rename = async (baseUrl: string, authorization: string, key: string, name: string) => {
    const answer = await request(baseUrl, {
      method: "PUT",
      path: `/settings/1/accounts/_/api-keys/${key}`,
      authorization,
      body: { name },
    });
    assert.equal(answer.status, 200, answer.text);
  };
  const conflictKeyName = "team shared gateway (renamed here)";
  await rename(
    remote.url,
    remoteAuth,
    await keyOn(remote.url, remoteAuth, "team shared gateway"),
    "team shared gateway (renamed there)",
  );
  await rename(
    local.baseUrl,
    owner,
    await keyOn(local.baseUrl, owner, "team shared gateway"),
    conflictKeyName,
  );
  await bridge("sync.run", { id: link.id });
  // A second remote that is down: its link's last run failed ("Last error").
  const down = await bridge<{ id: string }>("profiles.add", {
    name: "Old staging (down)",
    baseUrl: await closedPortUrl(),
    username: remoteUser.username,
    password: remoteUser.password,
  });
  const downLink = await bridge<{ id: number }>("sync.links.create", {
    localAccountKey: subAccounts[0]?.accountKey as string,
    profileId: down.id,
    remoteAccountKey: "_",
    intervalSeconds: 3600,
    check: false, // linked anyway: the remote is down
  });
  await callBridge(host, "sync.run", { id: downLink.id }).catch(() => {}); // fails: it is down
  return { local, subAccounts, applications, linkId: link.id, conflictKeyName, downProfileId: down.id };
}
