import assert from "node:assert/strict";
import { test } from "node:test";
import {
  applicationFormErrors,
  applicationFormValues,
  applicationRequestOf,
  formErrorsOf,
  templateFormErrors,
  templateFormValues,
  templateRequestOf,
} from "../../../../../renderer/src/features/tfa/tfaForms.ts";

/** The 2FA forms' pure half: values to requests, and errors from the service's own schemas. */

test("a new application's form holds the service's defaults, and is valid once named", () => {
  const values = applicationFormValues();
  assert.equal(values.pinTimeToLive, "15m");
  assert.equal(values.pinAttempts, 10);
  assert.deepEqual(applicationFormErrors(values, "create"), { name: "must not be blank" });
  assert.deepEqual(applicationFormErrors({ ...values, name: "Login" }, "create"), {});
});

test("configuration errors land on the form's own field names, in the schema's words", () => {
  const values = { ...applicationFormValues(), name: "Login", pinAttempts: "", pinTimeToLive: "0m" };
  const errors = applicationFormErrors(values, "update");
  assert.deepEqual(Object.keys(errors).sort(), ["pinAttempts", "pinTimeToLive"]);
  assert.equal(errors.pinTimeToLive, "must be longer than zero");
  assert.match(
    applicationFormErrors({ ...values, pinAttempts: 1001, pinTimeToLive: "1m" }, "create").pinAttempts ?? "",
    /at most 1000/,
  );
  assert.match(
    applicationFormErrors(
      { ...values, pinAttempts: 3, pinTimeToLive: "1m", verifyPinLimit: "1/400d" },
      "create",
    ).verifyPinLimit ?? "",
    /one year/,
  );
});

test("a typed number becomes a number in the request; limits are trimmed", () => {
  const request = applicationRequestOf({
    ...applicationFormValues(),
    name: "x",
    pinAttempts: "7",
    verifyPinLimit: " 2/1s ",
  });
  assert.equal(request.configuration?.pinAttempts, 7);
  assert.equal(request.configuration?.verifyPinLimit, "2/1s");
});

test("the service's validationErrors map onto the form's fields", () => {
  assert.deepEqual(formErrorsOf({ "configuration.pinAttempts": ["a", "b"], name: ["c"] }), {
    pinAttempts: "a; b",
    name: "c",
  });
});

test("an empty optional template field is left out of a new template and cleared (null) on an edit", () => {
  const values = { ...templateFormValues(), senderId: " ", voiceName: "Joanna" };
  const created = templateRequestOf(values, "create");
  assert.equal("senderId" in created, false);
  assert.equal(created.voiceName, "Joanna");
  assert.equal(templateRequestOf(values, "update").senderId, null);
});

test("template errors: the PIN placeholder, the PIN length and the DTMF keys, as the service says them", () => {
  assert.deepEqual(templateFormErrors(templateFormValues(), "create"), {});
  const errors = templateFormErrors(
    { ...templateFormValues(), messageText: "no pin", pinLength: 17, repeatDTMF: "12a" },
    "create",
  );
  assert.deepEqual(Object.keys(errors).sort(), ["messageText", "pinLength", "repeatDTMF"]);
  assert.match(errors.messageText ?? "", /\{\{pin\}\}/);
});

test("India DLT fields become regional.indiaDlt, all empty none (cleared on an edit), and its errors map back", () => {
  const values = { ...templateFormValues(), dltPrincipalEntityId: "1201", dltTeleMarketerId: "" };
  assert.deepEqual(templateRequestOf(values, "create").regional, { indiaDlt: { principalEntityId: "1201" } });
  assert.equal("regional" in templateRequestOf(templateFormValues(), "create"), false);
  assert.equal(templateRequestOf(templateFormValues(), "update").regional, null);
  const tooLong = templateFormErrors({ ...values, dltPrincipalEntityId: "9".repeat(31) }, "create");
  assert.deepEqual(Object.keys(tooLong), ["dltPrincipalEntityId"]);
});
