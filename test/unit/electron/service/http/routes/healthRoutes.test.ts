import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import {
  HEALTH_READY_PATH,
  registerHealthRoutes,
} from "../../../../../../electron/service/http/routes/healthRoutes.ts";

/**
 * Readiness while the service stops (a state a request to a real process reaches only by a race),
 * and a store failure's own text never reaching the answer.
 */

async function ready(checks: Parameters<typeof registerHealthRoutes>[1]) {
  const app = Fastify({ logger: false });
  registerHealthRoutes(app, checks);
  try {
    const res = await app.inject({ url: HEALTH_READY_PATH });
    return { status: res.statusCode, body: res.json(), cacheControl: res.headers["cache-control"] };
  } finally {
    await app.close();
  }
}

test("a stopping service is not ready, whatever its store says: the balancer sends elsewhere", async () => {
  const answer = await ready({ storeAnswers: () => undefined, stopping: () => true });
  assert.equal(answer.status, 503);
  assert.equal(answer.cacheControl, "no-store");
  assert.deepEqual(answer.body, {
    requestError: {
      serviceException: {
        messageId: "SERVICE_UNAVAILABLE",
        text: "the service is stopping; send requests to another instance",
      },
    },
  });
});

test("a store that fails is not ready, and what it threw (a path, a host) stays out of the answer", async () => {
  const answer = await ready({
    storeAnswers: async () => {
      throw new Error("connect ECONNREFUSED 10.0.0.7:5432 for /srv/keydesk/keydesk.db");
    },
    stopping: () => false,
  });
  assert.equal(answer.status, 503);
  assert.equal(
    answer.body.requestError.serviceException.text,
    "the service cannot read its database; its log says why",
  );
  assert.doesNotMatch(JSON.stringify(answer.body), /10\.0\.0\.7|srv|ECONNREFUSED/);
});

async function logOf(level: string, checks: Parameters<typeof registerHealthRoutes>[1]): Promise<string> {
  const lines: string[] = [];
  const app = Fastify({ logger: { level, stream: { write: (line: string) => lines.push(line) } } });
  registerHealthRoutes(app, checks);
  try {
    await app.inject({ url: HEALTH_READY_PATH });
  } finally {
    await app.close();
  }
  return lines.join("");
}

test("a healthy probe is not logged; a failed one is, unless the service's log level is quieter", async () => {
  const healthy = { storeAnswers: () => undefined, stopping: () => false };
  const failing = {
    storeAnswers: () => {
      throw new Error("damaged");
    },
    stopping: () => false,
  };
  assert.equal(await logOf("info", healthy), "");
  assert.match(await logOf("info", failing), /readiness: the database did not answer/);
  assert.match(await logOf("error", failing), /readiness: the database did not answer/);
  assert.equal(await logOf("fatal", failing), "");
  assert.equal(await logOf("silent", failing), "");
});
