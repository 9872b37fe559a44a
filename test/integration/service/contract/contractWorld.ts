import assert from "node:assert/strict";
import { type ForeignRemote, startForeignRemote } from "../../../harness/foreignRemote.ts";
import { basic, request } from "../../../harness/keyServiceProcess.ts";
import { type ApiKey, assertOk, type Service, startService } from "../serviceFixture.ts";

/**
 * What the contract suite drives the service with: a real `key-service serve` process with an
 * account, its sub-account and a stranger; API keys of each kind; 2FA applications, templates and
 * PINs; and a sync link to a foreign remote (written from the spec, in this process) that can be
 * made to refuse a change. Ids of everything are kept, so each path parameter of the document has
 * a real value.
 */

export const OWNER = "owner";
export const SUB = "sub";
export const STRANGER = "stranger";
export const PASSWORDS: Record<string, string> = {
  [OWNER]: "owner-secret-1",
  [SUB]: "sub-secret-1",
  [STRANGER]: "stranger-secret-1",
};

/** The name of the key the foreign remote has before the link is made. */
export const SHARED_KEY_NAME = "shared with the remote";

/** An id in the right shape that names nothing. */
export const UNKNOWN_ID = "0123456789ABCDEF0123456789ABCDEF";

export interface ContractWorld {
  service: Service;
  remote: ForeignRemote;
  /** A key to read and update. */
  managed: ApiKey;
  /** `App <publicApiKey>` of an ALL key, a TFA key and a disabled key. */
  allKey: string;
  tfaKey: string;
  disabledKey: string;
  /** An application with default limits and its template. */
  appId: string;
  msgId: string;
  /** A disabled application and its template. */
  disabledAppId: string;
  disabledMsgId: string;
  /** An application that allows one PIN per number a day. */
  limitedAppId: string;
  limitedMsgId: string;
  linkId: number;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

async function ok<T = Json>(service: Service, method: string, path: string, body?: unknown): Promise<T> {
  const res = await service.call({
    method,
    path,
    authorization: service.auth(OWNER),
    ...(body !== undefined && { body }),
  });
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path} → ${res.status} ${res.text}`);
  return res.json as T;
}

async function application(service: Service, body: Json): Promise<[string, string]> {
  const app = await ok<{ applicationId: string }>(service, "POST", "/2fa/2/applications", body);
  const template = await ok<{ messageId: string }>(
    service,
    "POST",
    `/2fa/2/applications/${app.applicationId}/messages`,
    { messageText: "Your code is {{pin}}", pinType: "NUMERIC" },
  );
  return [app.applicationId, template.messageId];
}

/** The address allowed to read /metrics; any other loopback address (127.0.0.2) is refused. */
export const METRICS_READER = "127.0.0.1";

export async function startContractWorld(): Promise<ContractWorld> {
  const service = await startService(
    [
      { username: OWNER, password: PASSWORDS[OWNER] as string },
      { username: SUB, password: PASSWORDS[SUB] as string, parent: OWNER },
      { username: STRANGER, password: PASSWORDS[STRANGER] as string },
    ],
    // As a team server runs it: the document then describes /metrics, whose answers are probed too.
    ["--metrics", "--metrics-allow", METRICS_READER],
  );
  const remote = await startForeignRemote();
  try {
    const managed = await service.createKey(OWNER, { name: "managed" });
    const allKey = `App ${(await service.createKey(OWNER, { name: "all", permissions: ["ALL"] })).publicApiKey}`;
    const tfaKey = `App ${(await service.createKey(OWNER, { name: "tfa", permissions: ["TFA"] })).publicApiKey}`;
    const off = await service.createKey(OWNER, { name: "off" });
    assertOk(
      await service.call({
        method: "PUT",
        path: `/settings/1/accounts/_/api-keys/${off.key}`,
        authorization: service.auth(OWNER),
        body: { enabled: false },
      }),
    );
    const [appId, msgId] = await application(service, { name: "open" });
    const [disabledAppId, disabledMsgId] = await application(service, { name: "disabled" });
    await ok(service, "PUT", `/2fa/2/applications/${disabledAppId}`, { enabled: false });
    const [limitedAppId, limitedMsgId] = await application(service, {
      name: "limited",
      configuration: { sendPinPerPhoneNumberLimit: "1/1d" },
    });
    // A key on the remote, mirrored here by the link's runs: the suite's conflict and outbox entry are its.
    const shared = await request(remote.url, {
      method: "POST",
      path: "/settings/1/accounts/_/api-keys",
      authorization: basic(remote.username, remote.password),
      body: { name: SHARED_KEY_NAME, allowedIPs: ["10.0.0.1"], validFrom: "2026-01-01T01:00:00.000+0100" },
    });
    assert.equal(shared.status, 200, shared.text);
    const link = await ok<{ id: number }>(service, "POST", "/local/1/sync/links", {
      accountKey: "_",
      remote: { baseUrl: remote.url, username: remote.username, password: remote.password },
      intervalSeconds: 3600,
    });
    return {
      service,
      remote,
      managed,
      allKey,
      tfaKey,
      disabledKey: `App ${off.publicApiKey}`,
      appId,
      msgId,
      disabledAppId,
      disabledMsgId,
      limitedAppId,
      limitedMsgId,
      linkId: link.id,
      async close() {
        await service.close();
        await remote.close();
      },
    };
  } catch (error) {
    await service.close();
    await remote.close();
    throw error;
  }
}
