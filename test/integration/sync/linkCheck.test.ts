import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import type { SyncLinkDto } from "../../../shared/sync.ts";
import { PASSWORD, type SyncPair, startPair } from "./syncFixture.ts";

/**
 * Creating a link checks the remote at once — reachable, credentials accepted, the account theirs
 * to manage — and a failed check is a 400 that says which part failed, with nothing stored.
 */

let pair: SyncPair;
before(async () => {
  pair = await startPair();
});
after(() => pair.close());

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

interface Refusal {
  requestError: {
    serviceException: { messageId: string; text: string; validationErrors: Record<string, string[]> };
  };
}

const linkTo = (remote: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  pair.local.call<SyncLinkDto & Refusal>("POST", "/local/1/sync/links", {
    accountKey: "_",
    remote: { username: "team", password: PASSWORD, ...remote },
    intervalSeconds: 3600,
    ...extra,
  });

async function assertRefused(remote: Record<string, unknown>, field: string, text: RegExp) {
  const answer = await linkTo(remote);
  assert.equal(answer.status, 400, answer.text);
  const exception = answer.json.requestError.serviceException;
  assert.equal(exception.messageId, "BAD_REQUEST");
  assert.match(exception.text, /^the link was not made: /);
  assert.match(exception.text, text);
  assert.deepEqual(Object.keys(exception.validationErrors), [field]);
  assert.match(exception.validationErrors[field]?.[0] ?? "", text);
  assert.doesNotMatch(answer.text, new RegExp(PASSWORD), "the password is not echoed");
  const { links } = await pair.local.ok<{ links: unknown[] }>("GET", "/local/1/sync/links");
  assert.equal(links.length, 0, "nothing was stored");
}

test("a remote nobody listens at: not reachable", async () => {
  const baseUrl = await closedPortUrl();
  await assertRefused(
    { baseUrl },
    "remote.baseUrl",
    /is not reachable as the key-management API: could not reach/,
  );
});

test("an address that answers, but not with the API: not reachable as the API", async () => {
  await assertRefused(
    { baseUrl: `${pair.remote.url}/not/the/api` },
    "remote.baseUrl",
    /has no key-management API at that address/,
  );
});

test("a wrong password: the credentials were refused", async () => {
  await assertRefused(
    { baseUrl: pair.remote.url, password: "not the password" },
    "remote.password",
    /refused the username or password/,
  );
});

test("an account the credentials do not manage: the account part failed", async () => {
  await assertRefused(
    { baseUrl: pair.remote.url, accountKey: "0123456789ABCDEF0123456789ABCDEF" },
    "remote.accountKey",
    /accepted the credentials but they may not manage the keys of account 0123456789ABCDEF0123456789ABCDEF/,
  );
});

test("check: false links a remote that is down for now; its runs then fail and back off as before", async () => {
  const answer = await linkTo({ baseUrl: await closedPortUrl() }, { check: false });
  assert.equal(answer.status, 200, answer.text);
  await pair.local.ok("DELETE", `/local/1/sync/links/${answer.json.id}`);
});

test("a remote that passes the check is linked", async () => {
  const answer = await linkTo({ baseUrl: pair.remote.url });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json.remote.baseUrl, pair.remote.url);
});
