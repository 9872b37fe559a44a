import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../harness/keyServiceProcess.ts";

/** README.md is what a new user follows: what it names must be what the project has. */

const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  engines: { node: string; npm: string };
  scripts: Record<string, string>;
};

test("the Node and npm versions README asks for are package.json's engines", () => {
  const asked = /Node\.js ≥ ([\d.]+) and npm ≥ ([\d.]+)/.exec(readme);
  assert.ok(asked, "README names no Node.js / npm requirement");
  const [, node, npm] = asked;
  assert.equal(pkg.engines.node.replace(/^>=/, "").replace(/\.0$/, ""), node);
  assert.equal(pkg.engines.npm.replace(/^>=/, ""), npm);
});

test("every npm script README names exists", () => {
  const named = new Set(
    [...readme.matchAll(/npm run (?:-s )?([\w:-]+)/g)].map((match) => match[1] as string),
  );
  assert.ok(named.has("web") && named.has("key-service"), [...named].join(", "));
  for (const script of named)
    assert.ok(pkg.scripts[script], `README names "npm run ${script}", which package.json lacks`);
});

test("the system packages come before npm install in the set-up, not only under the tests", () => {
  const setUp = readme.slice(readme.indexOf("## Set up and run"), readme.indexOf("## Run the tests"));
  const install = setUp.search(/^npm install +# set up$/m);
  assert.ok(install !== -1, "the set-up has no `npm install` step");
  for (const part of ["libsecret-1-dev", "gnome-keyring", "dbus-run-session"]) {
    const at = setUp.indexOf(part);
    assert.ok(at !== -1, `the set-up does not name ${part}`);
  }
  assert.ok(setUp.indexOf("libsecret-1-dev") < install, "libsecret-1-dev is named after npm install");
});
