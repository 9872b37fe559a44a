#!/usr/bin/env node
// Keeps the production dependencies (what ships in the app and in `key-service serve`) minimal
// and reviewed: the direct production dependencies must be exactly the ones below, each with the
// reason it is there; adding one means reviewing it here (is it maintained, does it duplicate one
// we have).
//
// Why no advisory check: `npm audit` posts to the registry's advisory endpoint, which answers 405
// from these machines; no maintained advisory database is published on the npm registry (GitHub's
// advisory database and OSV are served from their own hosts, out of reach); and the registry
// mirror here strips what could stand in for one (versions' `deprecated` notices, true publish
// times). Run `npm audit --omit=dev` on a machine with normal network access before a release.
import { readFileSync } from "node:fs";

const REVIEWED = {
  "@fastify/swagger":
    "generates the service's /openapi.json (OpenAPI 3.1) from the schemas its routes declare (issue 33), " +
    "so the document cannot drift from the routes: Fastify's own maintained plugin",
  "better-sqlite3": "the SQLite store (DESIGN.md); maintained, Node-API",
  "eventsource-parser":
    "reads the service's server-sent events (PIN inbox, sync state) in the HTTP client (issue 33): the " +
    "maintained spec-conformant parser (rexxars/eventsource-parser), no dependencies, no native code",
  fastify: "the HTTP service: schemas, body limits, logging (DESIGN.md)",
  "fastify-type-provider-zod":
    "the type provider of Fastify for zod (issue 33): routes are typed from the zod schemas they declare " +
    "(request.params, query and body as the schemas' validation parsed them, without casts); maintained (turkerdev), made for zod 4 and Fastify 5, no native code",
  "ipaddr.js": "IPv4/IPv6 and CIDR parsing for allowedIPs",
  pg: "the PostgreSQL store of the team server (issue 15): node-postgres, the maintained standard client",
  "prom-client":
    "the team server's /metrics in Prometheus' text format (issue 31): the reference Node client, maintained " +
    "under siimon/prom-client, no native code",
  pino: "structured logs with redaction (Fastify's logger)",
  "sodium-native":
    "libsodium (XChaCha20-Poly1305 for secrets at rest, secretstream for backups): vetted cryptography, " +
    "Node-API with prebuilt binaries inside the package (no download at install); maintained by Holepunch",
  "secure-json-parse": "JSON bodies without prototype poisoning (Fastify's own parser)",
  zod: "validation schemas shared by the service, the bridge and the forms",
  keytar:
    "the OS keychain, mandated by the product; optional. Its upstream repository is archived: " +
    "a maintained successor must keep the keychain entries readable; a decision to take",
};

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const direct = [
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.optionalDependencies ?? {}),
].sort();
const problems = [
  ...direct
    .filter((name) => !REVIEWED[name])
    .map(
      (name) =>
        `${name} is a production dependency nobody reviewed: add it to .ci/check-dependencies.mjs with its reason`,
    ),
  ...Object.keys(REVIEWED)
    .filter((name) => !direct.includes(name))
    .map(
      (name) => `${name} is reviewed but no longer a dependency: remove it from .ci/check-dependencies.mjs`,
    ),
];
console.log(
  `dependencies: ${direct.length} direct production dependencies, each reviewed: ${direct.join(", ")}`,
);
for (const problem of problems) console.error(`dependencies: ${problem}`);
process.exitCode = problems.length > 0 ? 1 : 0;
