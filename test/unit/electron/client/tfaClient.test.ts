import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { after, before, test } from "node:test";
import { KeyServiceClient } from "../../../../electron/client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../../../electron/client/serviceCallFailure.ts";
import { TfaClient } from "../../../../electron/client/tfaClient.ts";

/**
 * The 2FA applications client against a server that is not (or not quite) the 2FA API: what it
 * answers is checked before the app uses it, ids in paths are encoded, and the provider's shapes
 * pass. (Against the real service: test/integration/main/tfa.test.ts.)
 */

type Route = (request: IncomingMessage, body: string, response: ServerResponse) => void;
const routes = new Map<string, Route>();
let server: Server;
let client: TfaClient;

const json =
  (status: number, value: unknown): Route =>
  (_request, _body, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(value));
  };

const APPLICATION = {
  applicationId: "0123456789ABCDEF0123456789ABCDEF",
  name: "login",
  configuration: {
    pinAttempts: 10,
    allowMultiplePinVerifications: true,
    pinTimeToLive: "15m",
    verifyPinLimit: "1/3s",
    sendPinPerApplicationLimit: "10000/1d",
    sendPinPerPhoneNumberLimit: "3/1d",
  },
  enabled: true,
};

before(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      const route = routes.get(`${request.method} ${request.url}`);
      if (route) route(request, body, response);
      else
        json(404, { requestError: { serviceException: { messageId: "NOT_FOUND", text: "no such route" } } })(
          request,
          body,
          response,
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  client = new TfaClient(
    new KeyServiceClient({ baseUrl: `http://127.0.0.1:${port}`, username: "u", password: "p" }),
  );
});
after(() => new Promise((resolve) => server.close(resolve)));

test("the provider's application shape passes, unknown fields are dropped", async () => {
  routes.set("GET /2fa/2/applications", json(200, [{ ...APPLICATION, createdBy: "someone" }]));
  assert.deepEqual(await client.applications(), [APPLICATION]);
});

test("an answer that is not the 2FA API's is refused in words", async () => {
  routes.set("GET /2fa/2/applications", json(200, { applications: [APPLICATION] }));
  await assert.rejects(client.applications(), (error: unknown) => {
    assert.ok(error instanceof ServiceCallFailure);
    assert.equal(error.messageId, "GENERAL_ERROR");
    assert.match(error.text, /not the key-management API/);
    return true;
  });
});

test("ids are encoded into the path, the body is sent as given, and the service's error keeps its fields", async () => {
  let sent = "";
  routes.set("PUT /2fa/2/applications/a%2Fb%3F/messages/m%20n", (request, body, response) => {
    sent = body;
    json(400, {
      requestError: {
        serviceException: {
          messageId: "BAD_REQUEST",
          text: "invalid",
          validationErrors: { messageText: ["must contain the PIN placeholder {{pin}}"] },
        },
      },
    })(request, body, response);
  });
  await assert.rejects(client.updateTemplate("a/b?", "m n", { messageText: "x" }), (error: unknown) => {
    assert.ok(error instanceof ServiceCallFailure);
    assert.deepEqual(error.validationErrors, {
      messageText: ["must contain the PIN placeholder {{pin}}"],
    });
    return true;
  });
  assert.deepEqual(JSON.parse(sent), { messageText: "x" });
});
