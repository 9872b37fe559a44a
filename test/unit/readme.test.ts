import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import {
  ACCOUNT_USAGE,
  BACKUP_USAGE,
  CHECK_USAGE,
  KEYS_USAGE,
  MIGRATE_USAGE,
  SERVE_USAGE,
} from "../../electron/cli/usage.ts";
import { KEYCHAIN_BUILD_PACKAGES, KEYCHAIN_RUNTIME_PACKAGES } from "../../shared/keychainPackages.ts";
import { REPO_ROOT } from "../harness/keyServiceProcess.ts";

/**
 * README.md and the pages of docs/ are what a new user follows: what they name must be what the
 * project has (npm scripts, key-service commands and their options, files and headings they link
 * to), their tables must read in a terminal (100 characters), and the README stays a front page.
 */

const README = join(REPO_ROOT, "README.md");
const DOCS = join(REPO_ROOT, "docs");
const pages = [
  README,
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(DOCS, name)),
];
const text = new Map(pages.map((page) => [page, readFileSync(page, "utf8")]));
const readme = text.get(README) as string;
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  engines: { node: string; npm: string };
  scripts: Record<string, string>;
};
const name = (page: string) => relative(REPO_ROOT, page);

/** What `key-service help` prints, one line per command ("key-service account add …"). */
const usageLines = [SERVE_USAGE, ACCOUNT_USAGE, KEYS_USAGE, CHECK_USAGE, BACKUP_USAGE, MIGRATE_USAGE]
  .join("\n")
  .split("\n");

test("the Node and npm versions README asks for are package.json's engines", () => {
  const asked = /Node\.js ≥ ([\d.]+) and npm ≥ ([\d.]+)/.exec(readme);
  assert.ok(asked, "README names no Node.js / npm requirement");
  const [, node, npm] = asked;
  assert.equal(pkg.engines.node.replace(/^>=/, "").replace(/\.0$/, ""), node);
  assert.equal(pkg.engines.npm.replace(/^>=/, ""), npm);
});

test("README names the browser host and the key service", () => {
  assert.match(readme, /npm run -s web\b/);
  assert.match(readme, /npm run -s key-service\b/);
});

test("every npm script the README and docs/ name exists", () => {
  for (const [page, body] of text) {
    const named = [...body.matchAll(/\bnpm (?:run (?:-s )?([\w:-]+)|(test|start)\b)/g)].map(
      (match) => (match[1] ?? match[2]) as string,
    );
    for (const script of named)
      assert.ok(pkg.scripts[script], `${name(page)} names "npm run ${script}", which package.json lacks`);
  }
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

test("README gives the test command and how long it takes", () => {
  const tests = readme.slice(readme.indexOf("## Run the tests"));
  assert.match(tests, /```sh\nnpm test\n```/);
  assert.match(tests, /about \d+ minutes/);
});

/**
 * The key-service command lines of a page: shell lines that run it (`key-service -- …`, with
 * their `\` continuations) and the synopses of ```text blocks, each as the words after
 * "key-service".
 */
function keyServiceCommands(body: string): string[] {
  const commands: string[] = [];
  const joined = body.replace(/\\\n\s*/g, " ");
  for (const match of joined.matchAll(/key-service -- ([^\n#|`]*)/g))
    commands.push((match[1] as string).trim());
  for (const block of body.matchAll(/```text\n([\s\S]*?)```/g))
    for (const line of (block[1] as string).replace(/\n\s+/g, " ").split("\n"))
      if (line.trim() !== "") commands.push(line.trim());
  for (const match of body.matchAll(
    /`((?:account (?:add|list|passwd)|keys export|serve|check|backup|restore|migrate) --[^`]*)`/g,
  ))
    commands.push(match[1] as string);
  return commands;
}

test("every key-service command and option the README and docs/ name is one `help` lists for it", () => {
  let checked = 0;
  for (const [page, body] of text) {
    for (const command of keyServiceCommands(body)) {
      const words = command.split(/\s+/).filter((word) => /^[a-z]+$/.test(word));
      const [first, second] = words;
      if (first === undefined) continue; // "key-service -- …": any command
      const sub = first === "account" || first === "keys" ? `${first} ${second}` : (first as string);
      if (sub === "help") continue;
      const usage = usageLines.find((line) => line.startsWith(`key-service ${sub} `));
      assert.ok(usage, `${name(page)} runs "key-service ${sub}", which help does not list`);
      for (const option of command.match(/--[a-z][a-z-]*/g) ?? [])
        assert.ok(
          new RegExp(`${option}\\b`).test(usage),
          `${name(page)} gives ${option} to "key-service ${sub}", which help does not list for it: ${command}`,
        );
      checked++;
    }
  }
  assert.ok(checked > 20, `only ${checked} key-service commands found`);
});

test("every option of the configuration page is one serve or another command takes", () => {
  const body = text.get(join(DOCS, "configuration.md")) as string;
  const options = [...body.matchAll(/^- \*\*(`--[^*]+)\*\*/gm)].flatMap(
    (match) => (match[1] as string).match(/--[a-z][a-z-]*/g) ?? [],
  );
  assert.ok(options.length > 15, options.join(" "));
  for (const option of options)
    assert.ok(
      usageLines.some((line) => new RegExp(`${option}\\b`).test(line)),
      `docs/configuration.md describes ${option}, which no command takes`,
    );
  for (const option of SERVE_USAGE.match(/--[a-z][a-z-]*/g) ?? [])
    assert.ok(options.includes(option), `serve's ${option} is not in docs/configuration.md`);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(body: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = body.replace(/```[\s\S]*?```/g, "");
  for (const match of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = (match[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

test("every relative link of the README and docs/ leads to a file, and a heading there", () => {
  let checked = 0;
  for (const [page, body] of text) {
    const withoutCode = body.replace(/```[\s\S]*?```/g, "");
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string;
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const file = path === "" ? page : join(dirname(page), path);
      assert.ok(existsSync(file), `${name(page)} links to ${target}: no such file`);
      if (anchor !== undefined) {
        assert.ok(statSync(file).isFile() && file.endsWith(".md"), `${name(page)}: ${target} is no page`);
        assert.ok(
          anchorsOf(readFileSync(file, "utf8")).has(anchor),
          `${name(page)} links to ${target}: ${name(file)} has no such heading`,
        );
      }
      checked++;
    }
  }
  assert.ok(checked > 30, `only ${checked} links found`);
});

test("the README links to every page of docs/, and its screenshot is there", () => {
  for (const page of pages.filter((page) => page !== README))
    assert.ok(readme.includes(`](docs/${relative(DOCS, page)})`), `README does not link to ${name(page)}`);
  assert.match(readme, /!\[[^\]]+\]\(docs\/images\/keys-view\.png\)/);
  assert.ok(
    statSync(join(DOCS, "images", "keys-view.png")).size < 300 * 1024,
    "the screenshot is over 300 KB",
  );
});

test("no table of the README or docs/ is wider than 100 characters", () => {
  for (const [page, body] of text)
    body.split("\n").forEach((line, index) => {
      if (line.startsWith("|"))
        assert.ok(line.length <= 100, `${name(page)}:${index + 1} is ${line.length} characters wide`);
    });
});

test("the README is a front page: under 200 lines", () => {
  const lines = readme.split("\n").length;
  assert.ok(lines < 200, `README.md has ${lines} lines`);
});

/** The shell code of a page: its ```sh blocks. */
const shellBlocks = (body: string) => [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);

test("no password goes on a command line: curl asks, or reads a netrc file", () => {
  for (const [page, body] of text)
    for (const block of shellBlocks(body)) {
      assert.doesNotMatch(
        block,
        /curl[^\n]*\s-u\s+["']?[\w$]+:/,
        `${name(page)} puts a password on curl's command line`,
      );
      assert.doesNotMatch(
        block,
        /^\s*\w+=\w+:['"]/m,
        `${name(page)} keeps user:password in a variable for curl -u`,
      );
      assert.doesNotMatch(block, /export (KEY_SERVICE_PASSWORD|KEY_SERVICE_BACKUP_PASSPHRASE)=/, name(page));
    }
});

test("every secret an example reads or exports is unset on the same page", () => {
  for (const [page, body] of text)
    for (const block of shellBlocks(body))
      for (const match of block.matchAll(
        /(?:read -rs |export )(\w*(?:PASSWORD|PASSPHRASE|_PW|^PW)\w*)\b/gm,
      )) {
        const secret = match[1] as string;
        assert.match(
          body,
          new RegExp(`unset [\\w ]*\\b${secret}\\b`),
          `${name(page)} never unsets ${secret}`,
        );
      }
});

test("examples keep their data outside the clone", () => {
  for (const [page, body] of text)
    for (const block of shellBlocks(body))
      assert.doesNotMatch(
        block,
        /--(?:data-dir|out|in|from-sqlite) (?:\.\/|data\b|restored\b|keydesk\.kdbackup)/,
        `${name(page)} writes into the clone`,
      );
});

test("the headless service of the examples runs beside the app's Local service (not on 8787)", () => {
  let checked = 0;
  for (const [page, body] of text)
    for (const block of shellBlocks(body).map((b) => b.replace(/\\\n\s*/g, " ")))
      for (const line of block.split("\n").filter((l) => /key-service(?: --|\.ts) serve /.test(l))) {
        assert.match(line, /--port \d+/, `${name(page)} starts serve without a port: ${line}`);
        assert.doesNotMatch(line, /--port 8787\b/, `${name(page)} starts serve on the app's port: ${line}`);
        checked++;
      }
  assert.ok(checked >= 5, `only ${checked} serve commands found`);
});

test("KEY_SERVICE_DATABASE_URL is exported only inside a subshell, never left in the reader's shell", () => {
  for (const [page, body] of text)
    for (const block of shellBlocks(body))
      for (const line of block.split("\n").filter((l) => l.includes("export KEY_SERVICE_DATABASE_URL")))
        assert.match(line, /^\s+export/, `${name(page)} exports the database URL in the reader's shell`);
});

test("the keychain's packages are named alike by the README, the pages and the app", () => {
  const debian = /\| Debian, Ubuntu \| `apt-get install ([^`]+)`/.exec(readme)?.[1];
  assert.equal(debian, KEYCHAIN_BUILD_PACKAGES);
  const development = text.get(join(DOCS, "development.md")) as string;
  const apt = /^apt-get install (.+)$/m.exec(development)?.[1] ?? "";
  assert.ok(apt.startsWith(KEYCHAIN_BUILD_PACKAGES), `development.md installs ${apt}`);
  for (const part of KEYCHAIN_RUNTIME_PACKAGES.split(" ").filter((p) => p !== "libsecret-1-0"))
    assert.ok(apt.includes(part), `development.md does not install ${part}`);
  const recipes = [...text].filter(([, body]) =>
    shellBlocks(body).some((block) => block.includes("gnome-keyring-daemon --unlock")),
  );
  assert.deepEqual(
    recipes.map(([page]) => name(page)),
    ["docs/desktop.md"],
    "the headless keychain recipe is on one page, which the others link to",
  );
});

test("the security page gives the address to report a problem to", () => {
  const builder = readFileSync(join(REPO_ROOT, "electron-builder.yml"), "utf8");
  const address = /maintainer: .*<([^>]+)>/.exec(builder)?.[1];
  assert.ok(address, "electron-builder.yml names no maintainer address");
  assert.ok((text.get(join(DOCS, "security.md")) as string).includes(address), "docs/security.md lacks it");
});

test("the README reads in about two minutes: under 500 words", () => {
  const words = readme.split(/\s+/).filter((word) => /\w/.test(word)).length;
  assert.ok(words < 500, `README.md has ${words} words`);
});
