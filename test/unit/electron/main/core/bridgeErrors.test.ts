import assert from "node:assert/strict";
import { test } from "node:test";
import { ServiceCallFailure } from "../../../../../electron/client/serviceCallFailure.ts";
import { toBridgeError } from "../../../../../electron/main/core/bridgeErrors.ts";
import { CoreFailure } from "../../../../../electron/main/core/coreFailure.ts";

test("a key service's failure reaches the renderer with its messageId, text and per-field messages, not its status", () => {
  const failure = new ServiceCallFailure("BAD_REQUEST", "bad", { name: ["is required"] }, 400, 5_000);
  assert.deepEqual(toBridgeError(failure), {
    messageId: "BAD_REQUEST",
    text: "bad",
    validationErrors: { name: ["is required"] },
  });
  assert.deepEqual(toBridgeError(new ServiceCallFailure("UNREACHABLE", "could not reach it")), {
    messageId: "UNREACHABLE",
    text: "could not reach it",
  });
});

test("the core's own refusal reaches the renderer as it was made", () => {
  assert.deepEqual(toBridgeError(new CoreFailure("NOT_FOUND", "there is no connection profile p")), {
    messageId: "NOT_FOUND",
    text: "there is no connection profile p",
  });
  assert.deepEqual(toBridgeError(new CoreFailure("INVALID_ARGUMENT", "cursor", { cursor: ["bad"] })), {
    messageId: "INVALID_ARGUMENT",
    text: "cursor",
    validationErrors: { cursor: ["bad"] },
  });
});

test("anything else is GENERAL_ERROR with its message and no stack", () => {
  const error = new TypeError("x is not a function");
  assert.deepEqual(toBridgeError(error), {
    messageId: "GENERAL_ERROR",
    text: "the desktop app failed: x is not a function",
  });
  assert.deepEqual(toBridgeError("text"), {
    messageId: "GENERAL_ERROR",
    text: "the desktop app failed: text",
  });
});
