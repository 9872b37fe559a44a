import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  basic,
  type CliResult,
  makeTempDir,
  removeDir,
  request,
  runCli,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/** The command-line contract of `key-service account add | list | passwd`. */

const ACCOUNT_KEY_LINE = /^[0-9A-F]{32}\n$/;
const KEYS = "/settings/1/accounts/_/api-keys";

interface ListedAccount {
  accountKey: string;
  username: string;
  parentUsername: string | null;
}

describe("key-service account", () => {
  let dir: string;

  const add = (username: string, password: string | undefined, extra: string[] = []) =>
    runCli(
      ["account", "add", "--data-dir", dir, "--username", username, ...extra],
      password === undefined ? {} : { KEY_SERVICE_PASSWORD: password },
    );
  const listJson = async (): Promise<ListedAccount[]> => {
    const result = await runCli(["account", "list", "--data-dir", dir, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    return (JSON.parse(result.stdout) as { accounts: ListedAccount[] }).accounts;
  };
  const assertCleanFailure = (result: CliResult, label: string, exitCode?: number) => {
    if (exitCode === undefined) assert.notEqual(result.code, 0, `${label}: exit code`);
    else assert.equal(result.code, exitCode, `${label}: exit code; stderr: ${result.stderr}`);
    assert.equal(result.stdout, "", `${label}: nothing on stdout`);
    assert.match(result.stderr, /^key-service: \S.*/, `${label}: a message on stderr`);
    assert.doesNotMatch(result.stderr, /\n\s+at /, `${label}: no stack trace`);
  };

  before(async () => {
    dir = await makeTempDir();
  });

  after(async () => {
    await removeDir(dir);
  });

  test("list on a fresh data dir shows no accounts", async () => {
    assert.deepEqual(await listJson(), []);
    const table = await runCli(["account", "list", "--data-dir", dir]);
    assert.equal(table.code, 0, table.stderr);
    assert.deepEqual(table.stdout.split("\n"), ["ACCOUNT KEY  USERNAME  PARENT  CREATED", ""]);
  });

  test("add prints the new accountKey (32 uppercase hex) as its only stdout line", async () => {
    const result = await add("root-admin", "root-password");
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, ACCOUNT_KEY_LINE);
    const sub = await add("team-a", "team-password", ["--parent", "root-admin"]);
    assert.equal(sub.code, 0, sub.stderr);
    assert.match(sub.stdout, ACCOUNT_KEY_LINE);
    assert.notEqual(sub.stdout, result.stdout);
    const listed = await listJson();
    assert.deepEqual(
      listed.map(({ accountKey, username, parentUsername }) => ({ accountKey, username, parentUsername })),
      [
        { accountKey: result.stdout.trim(), username: "root-admin", parentUsername: null },
        { accountKey: sub.stdout.trim(), username: "team-a", parentUsername: "root-admin" },
      ],
    );
  });

  test("refused adds exit non-zero with a message on stderr, print nothing and write nothing", async () => {
    const before = await listJson();
    const cases: [string, Promise<CliResult>, number?][] = [
      ["duplicate username", add("root-admin", "another-password")],
      ["unknown parent", add("orphan", "orphan-password", ["--parent", "no-such-account"])],
      ["empty KEY_SERVICE_PASSWORD", add("no-password", "")],
      ["missing KEY_SERVICE_PASSWORD", add("no-password", undefined)],
      ["username with a space", add("a b", "pw")],
      ["username with a colon", add("a:b", "pw")],
      ["username of 65 characters", add("u".repeat(65), "pw")],
      ["username with non-ASCII letters", add("jürgen", "pw")],
      ["password over 1024 bytes", add("long-password", "p".repeat(1025))],
      ["empty --username", add("", "pw"), 2],
      [
        "missing --username",
        runCli(["account", "add", "--data-dir", dir], { KEY_SERVICE_PASSWORD: "pw" }),
        2,
      ],
      [
        "--password option",
        runCli(
          ["account", "add", "--data-dir", dir, "--username", "argv-user", "--password", "argv-secret-77"],
          {
            KEY_SERVICE_PASSWORD: "pw",
          },
        ),
        2,
      ],
      [
        "stray argument",
        runCli(["account", "add", "--data-dir", dir, "--username", "stray", "extra-word"], {
          KEY_SERVICE_PASSWORD: "pw",
        }),
        2,
      ],
    ];
    const results = await Promise.all(cases.map(([, run]) => run));
    cases.forEach(([label, , exitCode], index) => {
      assertCleanFailure(results[index] as CliResult, label, exitCode);
      if (exitCode === 2)
        assert.match((results[index] as CliResult).stderr, /usage:/, `${label}: usage shown`);
    });
    assert.match((results[0] as CliResult).stderr, /root-admin.*already exists/);
    assert.match((results[1] as CliResult).stderr, /no-such-account/);
    assert.match((results[2] as CliResult).stderr, /KEY_SERVICE_PASSWORD/);
    assert.match((results[3] as CliResult).stderr, /KEY_SERVICE_PASSWORD/);
    for (const result of results)
      assert.doesNotMatch(result.stderr, /argv-secret-77/, "a password is never echoed");
    assert.deepEqual(await listJson(), before, "the account list is unchanged");
  });

  test("the password is taken from KEY_SERVICE_PASSWORD only: the account signs in with it", async () => {
    const added = await add("env-user", "from-the-environment");
    assert.equal(added.code, 0, added.stderr);
    const server = await startServe({ dataDir: dir });
    try {
      const ok = await request(server.url, {
        path: KEYS,
        authorization: basic("env-user", "from-the-environment"),
      });
      assert.equal(ok.status, 200, ok.text);
    } finally {
      await server.stop();
    }
  });

  test("list prints an aligned table: account key, username, parent (or -), created", async () => {
    const accounts = await listJson();
    const result = await runCli(["account", "list", "--data-dir", dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    const lines = result.stdout.trimEnd().split("\n");
    assert.match(lines[0] as string, /^ACCOUNT KEY +USERNAME +PARENT +CREATED$/);
    assert.equal(lines.length, accounts.length + 1);
    const columnStarts = (line: string) =>
      [...line.matchAll(/(?:^| {2})(\S)/g)].map((m) => (m.index ?? 0) + m[0].length - 1);
    const header = columnStarts(lines[0] as string);
    accounts.forEach((account, index) => {
      const line = lines[index + 1] as string;
      const cells = line.split(/ {2,}/);
      assert.deepEqual(cells.slice(0, 3), [
        account.accountKey,
        account.username,
        account.parentUsername ?? "-",
      ]);
      assert.match(cells[3] as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
      assert.deepEqual(columnStarts(line), header, `row ${index + 1} is aligned with the header`);
    });
  });

  test("list --json gives accountKey, username and parentUsername of every account", async () => {
    const accounts = await listJson();
    assert.deepEqual(
      accounts.map(({ username, parentUsername }) => [username, parentUsername]),
      [
        ["root-admin", null],
        ["team-a", "root-admin"],
        ["env-user", null],
      ],
    );
    for (const account of accounts) assert.match(account.accountKey, /^[0-9A-F]{32}$/);
  });

  test("passwd changes the password: a running server accepts the new one and refuses the old", async () => {
    const added = await add("rotating", "old-password");
    assert.equal(added.code, 0, added.stderr);
    const server = await startServe({ dataDir: dir });
    try {
      const before = await request(server.url, {
        path: KEYS,
        authorization: basic("rotating", "old-password"),
      });
      assert.equal(before.status, 200, "the old password works (and is now cached by the server)");

      const changed = await runCli(["account", "passwd", "--data-dir", dir, "--username", "rotating"], {
        KEY_SERVICE_PASSWORD: "new-password",
      });
      assert.equal(changed.code, 0, changed.stderr);
      assert.equal(changed.stdout, "");
      assert.doesNotMatch(changed.stderr, /new-password/);

      const old = await request(server.url, { path: KEYS, authorization: basic("rotating", "old-password") });
      assert.equal(old.status, 401, "the old password is refused at once, cache or not");
      const fresh = await request(server.url, {
        path: KEYS,
        authorization: basic("rotating", "new-password"),
      });
      assert.equal(fresh.status, 200, fresh.text);
    } finally {
      await server.stop();
    }
  });

  test("passwd fails cleanly for an unknown user, an empty password or a --password option, changing nothing", async () => {
    const before = await listJson();
    const [unknown, empty, missing, argv, noUsername] = await Promise.all([
      runCli(["account", "passwd", "--data-dir", dir, "--username", "ghost"], {
        KEY_SERVICE_PASSWORD: "x-pass",
      }),
      runCli(["account", "passwd", "--data-dir", dir, "--username", "rotating"], {
        KEY_SERVICE_PASSWORD: "",
      }),
      runCli(["account", "passwd", "--data-dir", dir, "--username", "rotating"]),
      runCli([
        "account",
        "passwd",
        "--data-dir",
        dir,
        "--username",
        "rotating",
        "--password",
        "argv-pass-31",
      ]),
      runCli(["account", "passwd", "--data-dir", dir], { KEY_SERVICE_PASSWORD: "x-pass" }),
    ]);
    assertCleanFailure(unknown as CliResult, "unknown user");
    assert.match((unknown as CliResult).stderr, /ghost/);
    assertCleanFailure(empty as CliResult, "empty password");
    assertCleanFailure(missing as CliResult, "missing password");
    assertCleanFailure(argv as CliResult, "--password option", 2);
    assert.doesNotMatch((argv as CliResult).stderr, /argv-pass-31/);
    assertCleanFailure(noUsername as CliResult, "missing --username", 2);
    assert.deepEqual(await listJson(), before);

    // The password set before is still the one that works.
    const server = await startServe({ dataDir: dir });
    try {
      const ok = await request(server.url, { path: KEYS, authorization: basic("rotating", "new-password") });
      assert.equal(ok.status, 200, ok.text);
    } finally {
      await server.stop();
    }
  });

  test("help names the storage options every account subcommand takes, --data-key-file included", async () => {
    const help = await runCli(["help"]);
    assert.equal(help.code, 0, help.stderr);
    for (const subcommand of ["add", "list", "passwd"]) {
      const line = help.stdout.split("\n").find((l) => l.includes(`key-service account ${subcommand} `));
      assert.ok(line, `help has no line for account ${subcommand}:\n${help.stdout}`);
      for (const option of ["--data-dir DIR", "--database-url", "--data-key-file FILE"])
        assert.ok(line.includes(option), `account ${subcommand} in help lacks ${option}: ${line}`);
    }
  });

  test("an unknown account subcommand is a usage error", async () => {
    for (const args of [["account"], ["account", "delete"]]) {
      const result = await runCli([...args, "--data-dir", dir]);
      assertCleanFailure(result, args.join(" "), 2);
      assert.match(result.stderr, /usage:/);
    }
  });
});
