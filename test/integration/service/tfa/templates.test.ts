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

/** /2fa/2/applications/{appId}/messages: message templates, their defaults, validation and updates. */

let service: Service;
let owner: TfaCaller;
let stranger: TfaCaller;
let applicationId: string;

before(async () => {
  service = await startService([
    { username: "owner", password: "owner-secret-1" },
    { username: "stranger", password: "stranger-secret-1" },
  ]);
  owner = tfaCaller(service, await allKeyAuthorization(service, "owner"));
  stranger = tfaCaller(service, service.auth("stranger"));
  applicationId = await owner.createApplication({ name: "templates" });
});
after(async () => {
  await service?.close();
});

const messagesPath = (appId = applicationId) => `/2fa/2/applications/${appId}/messages`;
const create = (body: unknown, appId = applicationId) => owner.call("POST", messagesPath(appId), body);

describe("creating a message template", () => {
  test("messageText and pinType alone give a 4-character English template with the {{pin}} placeholder", async () => {
    const template = assertOk<Json>(await create({ messageText: "Your code: {{pin}}", pinType: "NUMERIC" }));
    assert.match(String(template.messageId), TFA_ID_PATTERN);
    assert.deepEqual(template, {
      messageId: template.messageId,
      applicationId,
      pinPlaceholder: "{{pin}}",
      messageText: "Your code: {{pin}}",
      pinLength: 4,
      pinType: "NUMERIC",
      language: "en",
      speechRate: 1,
    });
  });

  test("every optional field is stored and answered", async () => {
    const body = {
      messageText: "Hello {{name}}, your PIN is {{pin}}",
      pinType: "ALPHANUMERIC",
      pinLength: 8,
      language: "de",
      senderId: "Keydesk",
      repeatDTMF: "1#",
      speechRate: 0.5,
      voiceName: "Marlene",
      regional: { indiaDlt: { contentTemplateId: "T1", principalEntityId: "P1" } },
    };
    const template = assertOk<Json>(await create(body));
    assert.deepEqual(template, {
      messageId: template.messageId,
      applicationId,
      pinPlaceholder: "{{pin}}",
      ...body,
    });
    const read = await owner.call("GET", `${messagesPath()}/${template.messageId}`);
    assert.deepEqual(assertOk(read), template);
  });

  test("a text without {{pin}}, an unknown pinType and out-of-range values are refused per field", async () => {
    assertValidationError(await create({ messageText: "no placeholder", pinType: "NUMERIC" }), "messageText");
    assertValidationError(await create({ messageText: "{{pin}}", pinType: "EMOJI" }), "pinType");
    assertValidationError(await create({ messageText: "{{pin}}" }), "pinType");
    assertValidationError(await create({ pinType: "HEX" }), "messageText");
    for (const pinLength of [0, 17, 4.5, "6"]) {
      assertValidationError(await create({ messageText: "{{pin}}", pinType: "HEX", pinLength }), "pinLength");
    }
    for (const speechRate of [0.4, 2.1]) {
      assertValidationError(
        await create({ messageText: "{{pin}}", pinType: "HEX", speechRate }),
        "speechRate",
      );
    }
    assertValidationError(
      await create({ messageText: "{{pin}}", pinType: "HEX", language: "xx" }),
      "language",
    );
    assertValidationError(
      await create({ messageText: "{{pin}}", pinType: "HEX", repeatDTMF: "A" }),
      "repeatDTMF",
    );
    assertValidationError(
      await create({ messageText: "{{pin}}", pinType: "HEX", senderId: "a sender id far too long" }),
      "senderId",
    );
    assertValidationError(
      await create({ messageText: "{{pin}}", pinType: "HEX", regional: { indiaDlt: {} } }),
      "regional.indiaDlt.principalEntityId",
    );
    assertValidationError(await create({ messageText: "{{pin}}", pinType: "HEX", colour: 1 }), "colour");
  });

  test("pin lengths 1 and 16 are the bounds that are accepted", async () => {
    for (const pinLength of [1, 16]) {
      const template = assertOk<Json>(await create({ messageText: "{{pin}}", pinType: "HEX", pinLength }));
      assert.equal(template.pinLength, pinLength);
    }
  });

  test("templates of an unknown or another account's application are 404", async () => {
    const theirs = await stranger.createApplication({ name: "theirs" });
    for (const appId of [theirs, "0123456789ABCDEF0123456789ABCDEF"]) {
      assertApiError(await create({ messageText: "{{pin}}", pinType: "NUMERIC" }, appId), 404, "NOT_FOUND");
      assertApiError(await owner.call("GET", messagesPath(appId)), 404, "NOT_FOUND");
    }
  });
});

describe("listing and updating templates", () => {
  test("the list holds the application's templates in creation order and only those", async () => {
    const appId = await owner.createApplication({ name: "list" });
    const other = await owner.createApplication({ name: "other" });
    const a = await owner.createTemplate(appId, { messageText: "A {{pin}}", pinType: "NUMERIC" });
    const b = await owner.createTemplate(appId, { messageText: "B {{pin}}", pinType: "ALPHA" });
    await owner.createTemplate(other, { messageText: "C {{pin}}", pinType: "HEX" });
    const list = assertOk<Json[]>(await owner.call("GET", messagesPath(appId)));
    assert.deepEqual(
      list.map((template) => template.messageId),
      [a, b],
    );
    assert.deepEqual(
      list.map((template) => template.messageText),
      ["A {{pin}}", "B {{pin}}"],
    );
  });

  test("a template is reached only through its own application", async () => {
    const appId = await owner.createApplication({ name: "mine" });
    const other = await owner.createApplication({ name: "other" });
    const messageId = await owner.createTemplate(appId);
    assertOk(await owner.call("GET", `${messagesPath(appId)}/${messageId}`));
    assertApiError(await owner.call("GET", `${messagesPath(other)}/${messageId}`), 404, "NOT_FOUND");
    assertApiError(
      await owner.call("PUT", `${messagesPath(other)}/${messageId}`, { pinLength: 6 }),
      404,
      "NOT_FOUND",
    );
  });

  test("PUT replaces the fields sent, keeps the others, and null clears optional ones", async () => {
    const messageId = await owner.createTemplate(applicationId, {
      messageText: "Code {{pin}}",
      pinType: "NUMERIC",
      senderId: "Keydesk",
      repeatDTMF: "1#",
    });
    const path = `${messagesPath()}/${messageId}`;
    const updated = assertOk<Json>(
      await owner.call("PUT", path, { pinLength: 6, senderId: null, language: "fr" }),
    );
    assert.deepEqual(updated, {
      messageId,
      applicationId,
      pinPlaceholder: "{{pin}}",
      messageText: "Code {{pin}}",
      pinLength: 6,
      pinType: "NUMERIC",
      language: "fr",
      repeatDTMF: "1#",
      speechRate: 1,
    });
    assert.deepEqual(assertOk(await owner.call("GET", path)), updated);
  });

  test("PUT refuses to clear required fields, to drop {{pin}} or to change assigned ids", async () => {
    const messageId = await owner.createTemplate(applicationId);
    const path = `${messagesPath()}/${messageId}`;
    assertValidationError(await owner.call("PUT", path, { messageText: null }), "messageText");
    assertValidationError(await owner.call("PUT", path, { messageText: "no pin" }), "messageText");
    assertValidationError(await owner.call("PUT", path, { pinType: null }), "pinType");
    assertValidationError(await owner.call("PUT", path, { messageId: "0".repeat(32) }), "messageId");
    assertValidationError(await owner.call("PUT", path, { pinPlaceholder: "{{code}}" }), "pinPlaceholder");
    const unchanged = await owner.call("PUT", path, { messageId, applicationId, pinPlaceholder: "{{pin}}" });
    assert.equal(assertOk<Json>(unchanged).messageText, "Your code is {{pin}}");
  });
});
