import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, test } from "node:test";
import { KeyServiceClient } from "../../../../electron/client/keyServiceClient.ts";
import { formatApiDateTime } from "../../../../shared/datetime.ts";

/**
 * A service that neither pages, sorts nor knows Keydesk's state filter (another implementation of
 * the API) answers its whole list: the client narrows it by state and orders it as a Keydesk
 * service would, and still sends the parameters to services that know them.
 */

let server: Server;
let baseUrl: string;
const asked: string[] = [];
const NOW = Date.now();
const DAY = 24 * 3600_000;
const key = (name: string, fields: Record<string, unknown> = {}) => ({
  name,
  key: `K${name}`,
  publicApiKey: `pk-${name}`,
  accountKey: "A",
  permissions: ["ALL"],
  enabled: true,
  ...fields,
});
const WHOLE_LIST = [
  key("delta"),
  key("Bravo", { validTo: formatApiDateTime(NOW + 2 * DAY) }),
  key("alpha", { validTo: formatApiDateTime(NOW - DAY) }),
  key("charlie", { enabled: false }),
  key("echo", { validTo: formatApiDateTime(NOW + 30 * DAY) }),
];

before(async () => {
  server = createServer((request, response) => {
    asked.push(request.url ?? "");
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ apiKeys: WHOLE_LIST }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const client = () => new KeyServiceClient({ baseUrl, username: "u", password: "p" });
const names = (keys: { name: string }[]) => keys.map((k) => k.name);

test("the whole list of a service that does not page is narrowed by state and sorted here", async () => {
  const page = await client().listPage(
    "_",
    { state: "enabled", sort: { by: "name", desc: false } },
    { limit: 10 },
  );
  assert.equal(page.paged, false);
  assert.deepEqual(names(page.keys), ["Bravo", "delta", "echo"], "expired and disabled left out, any case");
  assert.match(asked.at(-1) ?? "", /state=enabled.*sort=name&order=asc|sort=name.*state=enabled/);
  const expiring = await client().listPage("_", { state: "expiring-soon" }, { limit: 10 });
  assert.deepEqual(names(expiring.keys), ["Bravo"]);
  const byState = await client().listPage("_", { sort: { by: "state", desc: false } }, { limit: 10 });
  assert.deepEqual(names(byState.keys), ["alpha", "Bravo", "echo", "delta", "charlie"]);
  const newest = await client().listPage("_", { sort: { by: "created", desc: true } }, { limit: 10 });
  assert.deepEqual(names(newest.keys), ["echo", "charlie", "alpha", "Bravo", "delta"]);
});
