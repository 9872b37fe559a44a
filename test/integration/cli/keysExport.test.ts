import assert from "node:assert/strict";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  addAccount,
  basic,
  type CliResult,
  makeTempDir,
  removeDir,
  request,
  runCli,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/** `key-service keys export`: an account's keys from the data dir, as CSV or JSON, secrets only when asked. */

const HEADER =
  "key,name,accountKey,permissions,allowedIPs,validFrom,validTo,enabled,state,createdAt,lastUsedAt,lastRefusedAt";

describe("key-service keys export", () => {
  let dir: string;
  let serve: ServeProcess;
  const secrets: string[] = [];
  const exportKeys = (args: string[]) => runCli(["keys", "export", "--data-dir", dir, ...args]);
  const assertUsageError = (result: CliResult, pattern: RegExp) => {
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, "");
    assert.match(result.stderr.split("\n")[0] ?? "", pattern);
  };

  before(async () => {
    dir = await makeTempDir("keydesk-cli-export-");
    await addAccount(dir, "owner", "owner-password-1");
    await addAccount(dir, "team", "team-password-1", "owner");
    serve = await startServe({ dataDir: dir });
    const create = async (username: string, password: string, body: unknown) => {
      const answer = await request(serve.url, {
        path: "/settings/1/accounts/_/api-keys",
        authorization: basic(username, password),
        body,
      });
      assert.equal(answer.status, 200, answer.text);
      secrets.push((answer.json as { publicApiKey: string }).publicApiKey);
    };
    await create("owner", "owner-password-1", { name: "billing, EU", allowedIPs: ["10.0.0.0/8"] });
    await create("owner", "owner-password-1", { name: "@risky", permissions: ["TFA"] });
    await create("team", "team-password-1", { name: "team key" });
    await serve.stop("SIGTERM");
  });
  after(async () => {
    await removeDir(dir);
  });

  test("CSV on stdout by default: the account's own keys, quoted and guarded, no publicApiKey", async () => {
    const result = await exportKeys(["--account", "owner"]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split("\r\n");
    assert.equal(lines[0], HEADER);
    assert.match(
      lines[1] ?? "",
      /^[0-9A-F]{32},"billing, EU",[0-9A-F]{32},ALL,10\.0\.0\.0\/8,,,true,Enabled,[^,]*,,$/,
    );
    assert.match(lines[2] ?? "", /^[0-9A-F]{32},'@risky,[0-9A-F]{32},TFA,,,,true,Enabled,[^,]*,,$/);
    assert.equal(lines.length, 4, "two keys, the sub-account's not among them");
    for (const secret of secrets) assert.ok(!result.stdout.includes(secret));
  });

  test("JSON with --with-public-api-key, written to --out readable by the user only", async () => {
    const out = join(dir, "keys.json");
    const result = await exportKeys([
      "--account",
      "team",
      "--format",
      "json",
      "--with-public-api-key",
      "--out",
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "");
    const json = JSON.parse(await readFile(out, "utf8")) as {
      apiKeys: { name: string; publicApiKey: string }[];
    };
    assert.deepEqual(
      json.apiKeys.map((key) => [key.name, key.publicApiKey]),
      [["team key", secrets[2]]],
    );
    assert.equal((await stat(out)).mode & 0o777, 0o600);
  });

  test("JSON without the flag has no publicApiKey field", async () => {
    const result = await exportKeys(["--account", "owner", "--format", "json"]);
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout) as { apiKeys: Record<string, unknown>[] };
    assert.equal(json.apiKeys.length, 2);
    assert.ok(json.apiKeys.every((key) => !("publicApiKey" in key)));
  });

  test("wrong usage is one clear line and exit 2; an unknown account exit 1", async () => {
    assertUsageError(await exportKeys([]), /^key-service: --account is required$/);
    assertUsageError(
      await exportKeys(["--account", "owner", "--format", "xml"]),
      /--format must be csv or json, not "xml"/,
    );
    assertUsageError(
      await exportKeys(["--account", "owner", "--bogus"]),
      /^key-service: Unknown option '--bogus'/,
    );
    assertUsageError(await runCli(["keys", "import"]), /unknown keys command "import"/);
    const unknown = await exportKeys(["--account", "nobody"]);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, "");
    assert.match(unknown.stderr, /^key-service: no account named nobody/);
  });
});
