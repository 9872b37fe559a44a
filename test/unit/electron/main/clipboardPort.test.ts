import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clipboardPortOf } from "../../../../electron/main/clipboardPort.ts";

/** An asynchronous clipboard like Electron 45's, holding one text. */
function asyncClipboard(initial = "") {
  const state = { text: initial };
  return {
    state,
    readText: async () => state.text,
    writeText: async (text: string) => {
      state.text = text;
    },
  };
}

describe("the core's clipboard over Electron's asynchronous clipboard", () => {
  it("writes what the core copies", async () => {
    const system = asyncClipboard("before");
    const port = clipboardPortOf(system);
    port.writeText("PUBLIC-KEY-1");
    await port.settled();
    assert.equal(system.state.text, "PUBLIC-KEY-1");
    assert.equal(port.readText(), "PUBLIC-KEY-1");
  });

  it("clears the clipboard when it still holds the copied value", async () => {
    const system = asyncClipboard();
    const port = clipboardPortOf(system);
    port.writeText("PUBLIC-KEY-1");
    if (port.readText() === "PUBLIC-KEY-1") port.writeText("");
    await port.settled();
    assert.equal(system.state.text, "");
  });

  it("leaves alone what the user copied since", async () => {
    const system = asyncClipboard();
    const port = clipboardPortOf(system);
    port.writeText("PUBLIC-KEY-1");
    await port.settled();
    system.state.text = "something the user copied";
    if (port.readText() === "PUBLIC-KEY-1") port.writeText("");
    await port.settled();
    assert.equal(system.state.text, "something the user copied");
  });

  it("reports a failing clipboard without throwing into the core", async () => {
    const errors: unknown[] = [];
    const port = clipboardPortOf(
      { readText: async () => "", writeText: async () => Promise.reject(new Error("no clipboard")) },
      (error) => errors.push(error),
    );
    port.writeText("PUBLIC-KEY-1");
    await port.settled();
    assert.equal(errors.length, 1);
  });
});
