import assert from "node:assert/strict";
import { test } from "node:test";
import { portNote } from "../../../../../renderer/src/features/profiles/portNote.ts";

test("a taken default port (nothing remembered yet) is not called the remembered one", () => {
  assert.equal(
    portNote({ takenPort: { port: 8787, remembered: false }, port: 41234 }),
    "port 8787 was taken, so it uses port 41234",
  );
});

test("a taken remembered port says so, and a port that was free says nothing", () => {
  assert.equal(
    portNote({ takenPort: { port: 8790, remembered: true }, port: 41234 }),
    "the remembered port 8790 was taken, so it uses port 41234",
  );
  assert.equal(portNote({ takenPort: null, port: 8787 }), "");
});
