import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  assertApiError,
  assertOk,
  assertValidationError,
  type Service,
  startService,
} from "../serviceFixture.ts";
import { allKeyAuthorization, type Json, TFA_ID_PATTERN, type TfaCaller, tfaCaller } from "./tfaFixture.ts";

/** /2fa/2/applications: create with defaults, list, get, update, validation, account isolation. */

let service: Service;
let basicCaller: TfaCaller;
let keyCaller: TfaCaller;
let strangerCaller: TfaCaller;

const DEFAULTS = {
  pinAttempts: 10,
  allowMultiplePinVerifications: true,
  pinTimeToLive: "15m",
  verifyPinLimit: "1/3s",
  sendPinPerApplicationLimit: "10000/1d",
  sendPinPerPhoneNumberLimit: "3/1d",
};

before(async () => {
  service = await startService([
    { username: "owner", password: "owner-secret-1" },
    { username: "stranger", password: "stranger-secret-1" },
  ]);
  basicCaller = tfaCaller(service, service.auth("owner"));
  keyCaller = tfaCaller(service, await allKeyAuthorization(service, "owner"));
  strangerCaller = tfaCaller(service, service.auth("stranger"));
});
after(async () => {
  await service?.close();
});

const create = (caller: TfaCaller, body: unknown) => caller.call("POST", "/2fa/2/applications", body);

describe("creating an application", () => {
  test("a name alone gives an enabled application with every configuration default filled in", async () => {
    const app = assertOk<Json>(await create(basicCaller, { name: "Login" }));
    assert.deepEqual(Object.keys(app), ["applicationId", "name", "configuration", "enabled"]);
    assert.match(String(app.applicationId), TFA_ID_PATTERN);
    assert.equal(app.name, "Login");
    assert.equal(app.enabled, true);
    assert.deepEqual(app.configuration, DEFAULTS);
  });

  test("the configuration sent is kept and the fields not sent get their defaults", async () => {
    const app = assertOk<Json>(
      await create(keyCaller, {
        name: "  Password reset  ",
        enabled: false,
        configuration: { pinAttempts: 5, pinTimeToLive: "10m", sendPinPerPhoneNumberLimit: "2/h" },
      }),
    );
    assert.equal(app.name, "Password reset", "the name is trimmed");
    assert.equal(app.enabled, false);
    assert.deepEqual(app.configuration, {
      ...DEFAULTS,
      pinAttempts: 5,
      pinTimeToLive: "10m",
      sendPinPerPhoneNumberLimit: "2/h",
    });
  });

  test("every time unit and the optional timeLength are accepted", async () => {
    for (const [pinTimeToLive, verifyPinLimit] of [
      ["500ms", "2/500ms"],
      ["30s", "5/s"],
      ["m", "1/1m"],
      ["2h", "10/h"],
      ["365d", "100/365d"],
    ]) {
      const app = assertOk<Json>(
        await create(basicCaller, { name: "units", configuration: { pinTimeToLive, verifyPinLimit } }),
      );
      assert.deepEqual(app.configuration, { ...DEFAULTS, pinTimeToLive, verifyPinLimit });
    }
  });

  test("invalid configuration values are refused with 400 naming each nested field", async () => {
    const res = await create(basicCaller, {
      name: "bad",
      configuration: {
        pinAttempts: 0,
        allowMultiplePinVerifications: "yes",
        pinTimeToLive: "366d",
        verifyPinLimit: "1/3y",
        sendPinPerApplicationLimit: "many/1d",
        sendPinPerPhoneNumberLimit: "0/1d",
      },
    });
    for (const field of [
      "configuration.pinAttempts",
      "configuration.allowMultiplePinVerifications",
      "configuration.pinTimeToLive",
      "configuration.verifyPinLimit",
      "configuration.sendPinPerApplicationLimit",
      "configuration.sendPinPerPhoneNumberLimit",
    ]) {
      assertValidationError(res, field);
    }
    assert.match(assertValidationError(res, "configuration.pinTimeToLive").join(" "), /one year/);
  });

  test("time formats that are not {timeLength}{timeUnit} are refused", async () => {
    for (const pinTimeToLive of ["15", "15 m", "1.5m", "15M", "-1s", "0s", "", "15min"]) {
      const res = await create(basicCaller, { name: "bad", configuration: { pinTimeToLive } });
      assertValidationError(res, "configuration.pinTimeToLive");
    }
  });

  test("a missing or blank name, unknown fields and a non-object body are refused", async () => {
    assertValidationError(await create(basicCaller, {}), "name");
    assertValidationError(await create(basicCaller, { name: "   " }), "name");
    assertValidationError(await create(basicCaller, { name: "x", colour: "red" }), "colour");
    assertValidationError(
      await create(basicCaller, { name: "x", configuration: { pinAttempt: 3 } }),
      "configuration.pinAttempt",
    );
    assertApiError(await create(basicCaller, ["name"]), 400, "BAD_REQUEST");
  });
});

describe("reading and updating applications", () => {
  test("the list holds the caller's applications in creation order, never another account's", async () => {
    const first = await basicCaller.createApplication({ name: "first" });
    const second = await keyCaller.createApplication({ name: "second" });
    const strangers = await strangerCaller.createApplication({ name: "theirs" });
    const list = assertOk<Json[]>(await basicCaller.call("GET", "/2fa/2/applications"));
    const ids = list.map((app) => app.applicationId);
    assert.ok(ids.indexOf(first) < ids.indexOf(second) && ids.indexOf(first) >= 0, JSON.stringify(ids));
    assert.ok(!ids.includes(strangers));
    assert.deepEqual(assertOk<Json[]>(await keyCaller.call("GET", "/2fa/2/applications")), list);
  });

  test("GET answers the application as created; a trailing slash names the same route", async () => {
    const created = assertOk<Json>(await create(basicCaller, { name: "get me" }));
    const id = created.applicationId as string;
    assert.deepEqual(assertOk(await keyCaller.call("GET", `/2fa/2/applications/${id}`)), created);
    assert.deepEqual(assertOk(await keyCaller.call("GET", `/2fa/2/applications/${id}/`)), created);
  });

  test("PUT replaces the fields sent, configuration field by field, and keeps the rest", async () => {
    const id = await basicCaller.createApplication({ name: "before", configuration: { pinAttempts: 3 } });
    const updated = assertOk<Json>(
      await keyCaller.call("PUT", `/2fa/2/applications/${id}`, {
        name: "after",
        configuration: { pinTimeToLive: "5m" },
      }),
    );
    assert.deepEqual(updated, {
      applicationId: id,
      name: "after",
      configuration: { ...DEFAULTS, pinAttempts: 3, pinTimeToLive: "5m" },
      enabled: true,
    });
    const disabled = assertOk<Json>(
      await basicCaller.call("PUT", `/2fa/2/applications/${id}`, { enabled: false }),
    );
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.name, "after");
    assert.deepEqual(assertOk(await basicCaller.call("GET", `/2fa/2/applications/${id}`)), disabled);
  });

  test("PUT may repeat the applicationId but not change it, and validates like create", async () => {
    const id = await basicCaller.createApplication({ name: "fixed" });
    assertOk(
      await basicCaller.call("PUT", `/2fa/2/applications/${id}`, { applicationId: id, name: "fixed" }),
    );
    assertValidationError(
      await basicCaller.call("PUT", `/2fa/2/applications/${id}`, { applicationId: "0".repeat(32) }),
      "applicationId",
    );
    assertValidationError(
      await basicCaller.call("PUT", `/2fa/2/applications/${id}`, { configuration: { verifyPinLimit: "3" } }),
      "configuration.verifyPinLimit",
    );
    assertValidationError(await basicCaller.call("PUT", `/2fa/2/applications/${id}`, { name: null }), "name");
  });

  test("another account's application and unknown ids are 404 for GET and PUT", async () => {
    const theirs = await strangerCaller.createApplication({ name: "theirs" });
    for (const id of [theirs, "0123456789ABCDEF0123456789ABCDEF", "not-an-id"]) {
      assertApiError(await basicCaller.call("GET", `/2fa/2/applications/${id}`), 404, "NOT_FOUND");
      assertApiError(
        await basicCaller.call("PUT", `/2fa/2/applications/${id}`, { name: "mine now" }),
        404,
        "NOT_FOUND",
      );
    }
    const still = assertOk<Json>(await strangerCaller.call("GET", `/2fa/2/applications/${theirs}`));
    assert.equal(still.name, "theirs");
  });

  test("applications survive a restart of the service", async () => {
    const created = assertOk<Json>(
      await create(basicCaller, { name: "durable", configuration: { pinAttempts: 7 } }),
    );
    await service.restart();
    const read = await basicCaller.call("GET", `/2fa/2/applications/${created.applicationId}`);
    assert.deepEqual(assertOk(read), created);
  });
});
