import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMessage } from "../../../../../electron/service/tfa/messageText.ts";

test("{{pin}} and the placeholders given are filled in; others stay as written", () => {
  assert.equal(
    renderMessage("Hi {{name}}, {{pin}} is your {{app}} code", "4821", { name: "Ann" }),
    "Hi Ann, 4821 is your {{app}} code",
  );
  assert.equal(renderMessage("{{pin}}{{pin}}", "12", {}), "1212");
  assert.equal(renderMessage("{{ pin }} {pin} {{pin}", "12", {}), "{{ pin }} {pin} {{pin}");
});

test("values are inserted once: a value that looks like a placeholder is not expanded", () => {
  assert.equal(renderMessage("{{a}} then {{pin}}", "99", { a: "{{pin}}" }), "{{pin}} then 99");
  assert.equal(renderMessage("{{toString}} {{pin}}", "1", {}), "{{toString}} 1");
});
