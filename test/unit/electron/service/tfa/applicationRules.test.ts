import assert from "node:assert/strict";
import { test } from "node:test";
import type { StoredApplication, StoredTemplate } from "../../../../../electron/service/domain/tfaRecords.ts";
import {
  applicationAfterUpdate,
  applicationForCreate,
  DEFAULT_CONFIGURATION,
  limitsOf,
  templateAfterUpdate,
  templateForCreate,
  toTemplateDto,
} from "../../../../../electron/service/tfa/applicationRules.ts";
import {
  createApplicationSchema,
  createTemplateSchema,
  updateApplicationSchema,
  updateTemplateSchema,
} from "../../../../../electron/service/tfa/schemas.ts";
import { validationErrorsByPath } from "../../../../../electron/service/tfa/validation.ts";

const stored: StoredApplication = {
  id: 1,
  applicationId: "0933F3BC087D2A617AC6DCB2EF5B8A61",
  accountId: 7,
  name: "login",
  enabled: true,
  configuration: { ...DEFAULT_CONFIGURATION, pinAttempts: 5 },
};

test("the provider's defaults fill every configuration field not sent", () => {
  assert.deepEqual(DEFAULT_CONFIGURATION, {
    pinAttempts: 10,
    allowMultiplePinVerifications: true,
    pinTimeToLive: "15m",
    verifyPinLimit: "1/3s",
    sendPinPerApplicationLimit: "10000/1d",
    sendPinPerPhoneNumberLimit: "3/1d",
  });
  const created = applicationForCreate(
    createApplicationSchema.parse({ name: " x ", configuration: { pinTimeToLive: "2m" } }),
  );
  assert.deepEqual(created, {
    name: "x",
    enabled: true,
    configuration: { ...DEFAULT_CONFIGURATION, pinTimeToLive: "2m" },
  });
});

test("an update merges the configuration field by field and keeps absent fields", () => {
  const request = updateApplicationSchema.parse({ configuration: { verifyPinLimit: "3/1s" } });
  assert.deepEqual(applicationAfterUpdate(stored, request), {
    ok: true,
    value: {
      name: "login",
      enabled: true,
      configuration: { ...DEFAULT_CONFIGURATION, pinAttempts: 5, verifyPinLimit: "3/1s" },
    },
  });
  const renamed = applicationAfterUpdate(stored, updateApplicationSchema.parse({ applicationId: "OTHER" }));
  assert.deepEqual(renamed, {
    ok: false,
    errors: { applicationId: ["is assigned by the service and cannot be changed"] },
  });
});

test("limits are read from the stored configuration", () => {
  assert.deepEqual(limitsOf(DEFAULT_CONFIGURATION), {
    pinTimeToLiveMs: 900_000,
    verifyPinLimit: { attempts: 1, windowMs: 3_000 },
    sendPinPerApplicationLimit: { attempts: 10_000, windowMs: 86_400_000 },
    sendPinPerPhoneNumberLimit: { attempts: 3, windowMs: 86_400_000 },
  });
});

test("a template gets length 4, English and speech rate 1 by default; unset optional fields are left out", () => {
  const fields = templateForCreate(createTemplateSchema.parse({ messageText: "{{pin}}", pinType: "HEX" }));
  const template: StoredTemplate = {
    ...fields,
    id: 1,
    messageId: "M",
    applicationRef: 1,
    applicationId: "A",
  };
  assert.deepEqual(toTemplateDto(template), {
    messageId: "M",
    applicationId: "A",
    pinPlaceholder: "{{pin}}",
    messageText: "{{pin}}",
    pinLength: 4,
    pinType: "HEX",
    language: "en",
    speechRate: 1,
  });
  const updated = templateAfterUpdate(
    { ...template, senderId: "Keydesk" },
    updateTemplateSchema.parse({ senderId: null, pinLength: 8 }),
  );
  assert.deepEqual(updated, { ok: true, value: { ...fields, senderId: null, pinLength: 8 } });
});

test("validation errors name nested fields by their dotted path and each unknown field", () => {
  const parsed = createApplicationSchema.safeParse({
    name: "",
    colour: 1,
    configuration: { pinTimeToLive: "1y", extra: true },
  });
  assert.equal(parsed.success, false);
  if (parsed.success) return;
  const errors = validationErrorsByPath(parsed.error.issues);
  assert.deepEqual(Object.keys(errors).sort(), [
    "colour",
    "configuration.extra",
    "configuration.pinTimeToLive",
    "name",
  ]);
  assert.deepEqual(errors.colour, ["is not a known field"]);
  const body = createApplicationSchema.safeParse("text");
  assert.equal(body.success, false);
  if (!body.success) assert.deepEqual(Object.keys(validationErrorsByPath(body.error.issues)), ["body"]);
});
