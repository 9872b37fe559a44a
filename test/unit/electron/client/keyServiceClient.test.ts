import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { after, before, test } from "node:test";
import { KeyServiceClient } from "../../../../electron/client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../../../electron/client/serviceCallFailure.ts";

/**
 * The API client against servers that are not (or not quite) the key service: a remote is never
 * trusted, so anything that is not the API's answer or error body becomes a clear BridgeError.
 * (The client against the real service is covered by test/integration/main.)
 */

type Route = (request: IncomingMessage, response: ServerResponse) => void;
const routes = new Map<string, Route>();
const seen: { url: string; authorization: string | undefined; body: string }[] = [];
let server: Server;
let baseUrl: string;

const send =
  (status: number, contentType: string, body: string): Route =>
  (_request, response) => {
    response.writeHead(status, { "content-type": contentType });
    response.end(body);
  };

const KEY = {
  name: "k",
  key: "0123456789ABCDEF0123456789ABCDEF",
  publicApiKey: "pk",
  accountKey: "FEDCBA9876543210FEDCBA9876543210",
  permissions: ["TFA"],
  enabled: true,
};

before(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      seen.push({ url: request.url ?? "", authorization: request.headers.authorization, body });
      const route = routes.get(`${request.method} ${(request.url ?? "").split("?")[0]}`);
      if (route) route(request, response);
      else send(404, "text/html", "<h1>Not Found</h1>")(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const client = (timeoutMs?: number) =>
  new KeyServiceClient({ baseUrl, username: "zoë", password: "pä:ss", ...(timeoutMs && { timeoutMs }) });

async function failure(promise: Promise<unknown>): Promise<ServiceCallFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ServiceCallFailure, String(error));
    return error;
  }
  assert.fail("expected a ServiceCallFailure");
}

test("sends Basic credentials as UTF-8 and the filters as query parameters; the permission filter applies locally", async () => {
  routes.set(
    "GET /settings/1/accounts/_/api-keys",
    send(
      200,
      "application/json",
      JSON.stringify({ apiKeys: [KEY, { ...KEY, permissions: ["ALL"], name: "a" }] }),
    ),
  );
  const keys = await client().list("_", { enabled: true, name: "two words", permission: "ALL" });
  assert.deepEqual(
    keys.map((key) => key.name),
    ["a"],
  );
  const last = seen.at(-1);
  assert.equal(last?.url, "/settings/1/accounts/_/api-keys?enabled=true&name=two+words");
  assert.equal(last?.authorization, `Basic ${Buffer.from("zoë:pä:ss", "utf8").toString("base64")}`);
});

test("an HTML page answered with 200 is not the API: GENERAL_ERROR naming the URL", async () => {
  routes.set(
    "GET /settings/1/accounts/_/api-keys/0123456789ABCDEF0123456789ABCDEF",
    send(200, "text/html", "<html>"),
  );
  const error = await failure(client().get("_", KEY.key));
  assert.equal(error.messageId, "GENERAL_ERROR");
  assert.match(error.text, /not the key-management API/);
  assert.ok(error.text.includes("127.0.0.1"));
});

test("JSON of the wrong shape, or not JSON despite its content type, is refused too", async () => {
  routes.set(
    "GET /settings/1/accounts/_/api-keys",
    send(200, "application/json", JSON.stringify({ apiKeys: [{ ...KEY, enabled: "yes" }] })),
  );
  assert.equal((await failure(client().list("_"))).messageId, "GENERAL_ERROR");
  routes.set("GET /settings/1/accounts/_/api-keys", send(200, "application/json", "{ nope"));
  assert.equal((await failure(client().list("_"))).messageId, "GENERAL_ERROR");
});

test("an error status without the API's error body is GENERAL_ERROR with the status", async () => {
  routes.set("POST /settings/1/accounts/_/api-keys", send(502, "text/plain", "Bad Gateway"));
  const error = await failure(client().create("_", { name: "x" }));
  assert.equal(error.messageId, "GENERAL_ERROR");
  assert.match(error.text, /HTTP 502/);
});

test("the API's error body keeps its messageId, text and validationErrors", async () => {
  routes.set(
    "POST /settings/1/accounts/_/api-keys",
    send(
      400,
      "application/json",
      JSON.stringify({
        requestError: {
          serviceException: {
            messageId: "BAD_REQUEST",
            text: "bad",
            validationErrors: { name: ["is required"] },
          },
        },
      }),
    ),
  );
  const error = await failure(client().create("_", { name: "x" }));
  const { messageId, text, validationErrors, status } = error;
  assert.deepEqual(
    { messageId, text, validationErrors, status },
    {
      messageId: "BAD_REQUEST",
      text: "bad",
      validationErrors: { name: ["is required"] },
      status: 400,
    },
  );
  assert.equal(seen.at(-1)?.body, JSON.stringify({ name: "x" }));
});

test("a remote without /local/1/accounts: the own account as `_`, and a verdict without accountKey", async () => {
  routes.set(
    "GET /settings/1/accounts/_/api-keys",
    send(200, "application/json", JSON.stringify({ apiKeys: [] })),
  );
  assert.deepEqual(await client().accounts(), [{ accountKey: "_", username: "zoë", parentAccountKey: null }]);
  const verdict = await client().testConnection();
  assert.equal(verdict.reachable, true);
  assert.equal(verdict.credentialsAccepted, true);
  assert.equal(verdict.accountKey, undefined);
});

test("a remote answering something else for the connection test: reachable, not accepted, says why", async () => {
  routes.set("GET /settings/1/accounts/_/api-keys", send(200, "text/html", "<html>login page</html>"));
  const verdict = await client().testConnection();
  assert.equal(verdict.reachable, true);
  assert.equal(verdict.credentialsAccepted, false);
  assert.match(verdict.text, /not the key-management API/);
});

test("a server that does not answer in time is UNREACHABLE", async () => {
  routes.set("GET /local/1/pins", () => {
    // Never answers.
  });
  const started = Date.now();
  const error = await failure(client(200).pins());
  assert.equal(error.messageId, "UNREACHABLE");
  assert.match(error.text, /did not answer within/);
  assert.ok(Date.now() - started < 5000);
});

test("a client of a kind says so on every request; a rotation's or bulk change's writes say which", async () => {
  const headers: Record<string, string | undefined>[] = [];
  const capture: Route = (request, response) => {
    headers.push({
      client: request.headers["keydesk-client"] as string | undefined,
      action: request.headers["keydesk-action"] as string | undefined,
    });
    send(200, "application/json", JSON.stringify(KEY))(request, response);
  };
  routes.set("POST /settings/1/accounts/_/api-keys", capture);
  routes.set(`PUT /settings/1/accounts/_/api-keys/${KEY.key}`, capture);
  routes.set(`GET /settings/1/accounts/_/api-keys/${KEY.key}`, capture);
  const desktop = new KeyServiceClient({ baseUrl, username: "u", password: "p", clientKind: "desktop" });
  await desktop.create("_", { name: "k" }, { action: "rotate" });
  await desktop.update("_", KEY.key, { enabled: false }, { action: "bulk" });
  await desktop.get("_", KEY.key);
  await new KeyServiceClient({ baseUrl, username: "u", password: "p" }).update("_", KEY.key, { name: "x" });
  assert.deepEqual(headers, [
    { client: "desktop", action: "rotate" },
    { client: "desktop", action: "bulk" },
    { client: "desktop", action: undefined },
    { client: undefined, action: undefined },
  ]);
});

test("include: a service that refuses usage (a 400 naming include) is asked again without it, and not asked for it again", async () => {
  const asked: string[] = [];
  routes.set("GET /settings/1/accounts/_/api-keys", (request, response) => {
    const include = new URL(request.url ?? "", baseUrl).searchParams.get("include");
    asked.push(include ?? "-");
    if (include?.includes("usage")) {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          requestError: {
            serviceException: {
              messageId: "BAD_REQUEST",
              text: "this service does not record the usage of keys (it runs with --usage off)",
              validationErrors: { include: ["usage is not recorded here"] },
            },
          },
        }),
      );
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ apiKeys: [{ ...KEY, createdAt: null, usage: "not usage" }], nextCursor: null }),
    );
  });
  const service = client();
  const page = await service.listPage("_", { include: ["usage", "created"] }, { limit: 10 });
  const [key] = page.keys as (typeof KEY & { createdAt?: unknown; usage?: unknown })[];
  assert.equal(key?.createdAt, null);
  assert.equal(key?.usage, undefined, "extras that are not what Keydesk answers are dropped, not refused");
  await service.listPage("_", { include: ["usage", "created"] }, { limit: 10 });
  assert.deepEqual(asked, ["usage,created", "created", "created"]);
});

test("an extension the service lacks is null; a 404 naming the request's part is an error to show", async () => {
  const errorBody = (status: number, validationErrors?: Record<string, string[]>) =>
    send(
      status,
      "application/json",
      JSON.stringify({
        requestError: {
          serviceException: {
            messageId: status === 405 ? "BAD_REQUEST" : "NOT_FOUND",
            text: "no",
            validationErrors,
          },
        },
      }),
    );
  const count = "GET /local/1/accounts/_/api-keys/count";
  const series = `GET /local/1/accounts/_/api-keys/${KEY.key}/usage-series`;
  const history = "GET /local/1/audit";
  // Missing: no route at all (an HTML 404), a 404 of the error shape naming nothing, a 405.
  routes.delete(count);
  assert.equal(await client().countKeys("_"), null);
  routes.set(count, errorBody(404));
  routes.set(series, errorBody(405));
  routes.set(history, errorBody(404));
  assert.equal(await client().countKeys("_"), null);
  assert.equal(await client().usageSeries("_", KEY.key), null);
  assert.equal(await client().keyHistory(KEY.key, 5), null);
  // The route is there, and what the path names is not: the account, the key.
  routes.set(count, errorBody(404, { accountKey: ["no account"] }));
  routes.set(series, errorBody(404, { key: ["no API key"] }));
  assert.deepEqual((await failure(client().countKeys("_"))).validationErrors, { accountKey: ["no account"] });
  assert.equal((await failure(client().usageSeries("_", KEY.key))).status, 404);
  for (const route of [count, series, history]) routes.delete(route);
});
