import assert from "node:assert/strict";
import { test } from "node:test";
import { postgresFailure } from "../../../../electron/service/postgresService.ts";

/** What pg rejects with when the database is out of reach, and what it rejects with otherwise. */
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test("a database out of reach is a storage failure (the HTTP layer answers 503), naming neither host nor credentials", () => {
  const unreachable = [
    withCode("connect ECONNREFUSED 10.1.2.3:5432", "ECONNREFUSED"),
    withCode("getaddrinfo ENOTFOUND db.internal", "ENOTFOUND"),
    withCode("terminating connection due to administrator command", "57P01"),
    withCode("the database system is starting up", "57P03"),
    withCode("sorry, too many clients already", "53300"),
    withCode("connection failure", "08006"),
    new Error("Connection terminated unexpectedly"),
    new Error("timeout exceeded when trying to connect"),
    // A pooled client whose connection dropped before its next statement.
    new Error("Client has encountered a connection error and is not queryable"),
    new Error("Connection terminated due to connection timeout"),
  ];
  for (const error of unreachable) {
    const answer = postgresFailure(error);
    assert.match(answer ?? "", /cannot be reached right now/, error.message);
    assert.doesNotMatch(answer ?? "", /10\.1\.2\.3|db\.internal|5432/);
  }
});

test("any other failure is not the storage's: the usual 500 handles it", () => {
  for (const error of [
    withCode("duplicate key", "23505"),
    withCode("syntax error", "42601"),
    new Error("boom"),
    "text",
  ]) {
    assert.equal(postgresFailure(error), undefined);
  }
});
