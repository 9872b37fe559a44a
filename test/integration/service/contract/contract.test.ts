import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { DATABASE_FILE } from "../../../../electron/service/dataDir.ts";
import { SQLITE_ONLY } from "../../../harness/keyServiceProcess.ts";
import type { OpenApiDocument } from "../../../harness/openApiConformance.ts";
import { probeAudit } from "./auditProbes.ts";
import { probeAuthSessions } from "./authSessionProbes.ts";
import { ContractCoverage } from "./contractCoverage.ts";
import { type ContractWorld, METRICS_READER, startContractWorld } from "./contractWorld.ts";
import {
  type Operation,
  operationsOf,
  probeBodies,
  probeCredentials,
  probeHeads,
  probeMethods,
  probeThrottle,
  probeUnknownPaths,
} from "./genericProbes.ts";
import { probeKeyManagement } from "./keyProbes.ts";
import { Prober, wrongPassword } from "./prober.ts";
import { probeSync } from "./syncProbes.ts";
import { NUMBER, probePinInbox, probeTfaApplications, probeTfaPins } from "./tfaProbes.ts";

/**
 * The service's contract, walked from its own /openapi.json: every documented operation and every
 * status each one documents is reached with real requests to a real `key-service serve`, and every
 * answer must conform to the document (status, headers, media type, closed schemas). A documented
 * answer no request reaches fails the last test, so the document cannot promise what the service
 * does not do, and an answer the document does not describe fails the request that got it.
 */

let world: ContractWorld;
let doc: OpenApiDocument;
let operations: Operation[];
let prober: Prober;
let pinId: string;
const coverage = new ContractCoverage();

before(async () => {
  world = await startContractWorld();
  const res = await world.service.call({ path: "/openapi.json" });
  assert.equal(res.status, 200);
  doc = res.json as OpenApiDocument;
  operations = operationsOf(doc);
  prober = new Prober(world, doc, coverage);
});
after(async () => {
  await world?.close();
});

test("without credentials, with an unknown scheme, or with an API key where it may not be used", async () => {
  await probeCredentials(prober, operations);
});

test("bodies too large, not JSON or broken, on every method that reads one", async () => {
  await probeBodies(prober, operations);
});

test("methods a path has no operation for are 405 naming the documented ones, whatever the body", async () => {
  await probeMethods(prober, doc);
});

test("paths that are no route", async () => {
  await probeUnknownPaths(prober);
});

test("IBSSO sessions: create, use, end", async () => {
  await probeAuthSessions(prober);
});

test("key management, the 2FA key, the account list and the document", async () => {
  await probeKeyManagement(prober);
});

test("2FA applications and message templates", async () => {
  await probeTfaApplications(prober);
});

test("PINs: send, resend, verify, status and verifications, with their limits", async () => {
  pinId = await probeTfaPins(prober);
});

test("the PIN inbox and its event stream", async () => {
  await probePinInbox(prober);
});

test("sync links, runs, conflicts and the outbox", async () => {
  await probeSync(prober);
});

test("the audit history: filters, paging, accounts the caller manages", async () => {
  await probeAudit(prober);
});

test("liveness and readiness, without credentials (and with any: they are not checked)", async () => {
  for (const path of ["/local/1/health/live", "/local/1/health/ready"]) {
    assert.deepEqual(await prober.ok({ path, authorization: "" }), { status: "ok" });
    assert.deepEqual(await prober.ok({ path, authorization: wrongPassword() }), { status: "ok" });
  }
});

test("the metrics, to the address allowed and without credentials; refused to any other address", async () => {
  // To the process itself: through the fixture's proxy every request comes from the proxy's address.
  const scrape = { path: "/metrics", authorization: "", direct: true } as const;
  const scraped = await prober.probe(200, { ...scrape, localAddress: METRICS_READER });
  assert.match(scraped.text, /^# HELP /m);
  await prober.probe(200, { ...scrape, authorization: wrongPassword(), localAddress: METRICS_READER });
  await prober.probe(403, { ...scrape, localAddress: "127.0.0.2" });
});

test("HEAD wherever GET is", async () => {
  await probeHeads(
    prober,
    operations,
    { pinId },
    { "/2fa/2/applications/{appId}/verifications": `?msisdn=${NUMBER}` },
  );
});

test("an address out of password attempts is throttled on every operation with credentials", async () => {
  await probeThrottle(prober, operations);
});

test("a write while another process holds the database answers 500, in the documented shape", {
  skip: SQLITE_ONLY,
}, async () => {
  // The service waits out its busy timeout (5 s) for the lock, then gives up on the write.
  const db = new Database(join(world.service.dataDir, DATABASE_FILE));
  try {
    db.exec("BEGIN EXCLUSIVE");
    await prober.probe(500, {
      method: "POST",
      path: "/settings/1/accounts/_/api-keys",
      body: { name: "locked" },
    });
  } finally {
    db.close();
  }
  assert.ok(coverage.has("POST /settings/1/accounts/{accountKey}/api-keys 500"));
});

/**
 * A 500 is the service failing on its own, which no well-formed or malformed request provokes
 * (the property-based tests fire thousands of random bodies and paths at it and assert none
 * does). One is driven above, through a database locked by another process; driving it for
 * every operation would cost the busy timeout each. Its body is the one error schema all share.
 * A 503 (a damaged database file, a full disk) is driven in test/integration/cli/damagedDatabase.test.ts.
 */
const exempt = (answer: string) => answer.endsWith(" 500") || answer.endsWith(" 503");

test("every operation that can fail documents the storage's 503 too, in the same words", () => {
  const failing = operations.filter(({ operation }) => operation.responses["500"]);
  assert.ok(failing.length > 30, `operations that document a 500: ${failing.length}`);
  const storageAnswers = new Set(
    failing.map(({ operation }) => JSON.stringify(operation.responses["503"] ?? null)),
  );
  assert.equal(storageAnswers.size, 1, [...storageAnswers].join("\n"));
  assert.match([...storageAnswers][0] as string, /damaged, or its disk is full/);
});

test("every documented operation and status was reached (the document promises nothing the service does not do)", () => {
  assert.deepEqual(coverage.missing(doc, exempt), []);
});
