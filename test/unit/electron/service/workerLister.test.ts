import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { type DataDir, openDataDir } from "../../../../electron/service/dataDir.ts";
import { newKeyId, newPublicApiKey } from "../../../../electron/service/domain/identifiers.ts";
import type { KeyLister, ListedAccount } from "../../../../electron/service/keyListing.ts";
import { inThreadLister } from "../../../../electron/service/store/sqliteKeyLister.ts";
import type { ApiKeyFilter } from "../../../../electron/service/store/store.ts";
import { keyListWorkerUrl, workerLister } from "../../../../electron/service/workerLister.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";
import { addStoredAccount } from "../../../harness/tempDataDir.ts";
import { SCHED_IDLE, threadPolicies } from "../../../harness/threadPolicies.ts";

/** Lists read by the worker thread: the same text as the service's own thread reads, and its failures. */

let dir: string;
let data: DataDir;
let owner: ListedAccount;
let worker: KeyLister;
let inThread: KeyLister;
const SIZE = 5_000;

before(async () => {
  dir = await makeTempDir();
  data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const account = (username: string) => addStoredAccount(data, username);
  const own = account("owner");
  const other = account("other");
  owner = { id: own.id, accountKey: own.accountKey };
  data.db.transaction(() => {
    for (let index = 0; index < SIZE; index++) {
      const account = index % 5 === 0 ? other : own;
      data.apiKeys.insert(
        account.id,
        account.accountKey,
        { key: newKeyId(), publicApiKey: newPublicApiKey() },
        {
          name: index % 700 === 0 ? `Straße ${index}` : `key ${index}`,
          allowedIPs: index % 4 === 0 ? ["10.0.0.0/8"] : null,
          permissions: index % 3 === 0 ? ["ALL", "TFA"] : ["ALL"],
          validFrom: index % 6 === 0 ? Date.UTC(2026, 0, 1) : null,
          validTo: null,
          enabled: index % 2 === 0,
        },
        index,
      );
    }
  })();
  worker = workerLister(keyListWorkerUrl() as URL, {
    databaseFile: data.databaseFile,
    dataKey: data.dataKey,
  });
  inThread = inThreadLister(data.apiKeys);
});
after(async () => {
  await worker?.close();
  data?.close();
  await removeDir(dir);
});

async function whole(
  lister: KeyLister,
  filter: ApiKeyFilter,
  account: ListedAccount = owner,
): Promise<string> {
  const pieces: Buffer[] = [];
  for await (const piece of lister.pieces(account, filter)) pieces.push(Buffer.from(piece));
  return `[${Buffer.concat(pieces).toString("utf8")}]`;
}

const filters: ApiKeyFilter[] = [
  {},
  { enabled: false },
  { nameContains: "STRASSE" },
  { nameContains: "straße" },
  { permission: "TFA", enabled: true },
];

for (const filter of filters) {
  test(`${JSON.stringify(filter)}: the worker's list, pages and count are the service thread's`, async () => {
    const listed = await whole(worker, filter);
    assert.equal(listed, await whole(inThread, filter));
    assert.equal(await worker.count(owner.id, filter), (JSON.parse(listed) as unknown[]).length);
    assert.deepEqual(await worker.page(owner, filter, 0, 7), await inThread.page(owner, filter, 0, 7));
    const firstPage = await inThread.page(owner, filter, 0, 1000);
    if (firstPage.lastId !== undefined) {
      assert.deepEqual(
        await worker.page(owner, filter, firstPage.lastId, 1000),
        await inThread.page(owner, filter, firstPage.lastId, 1000),
      );
    }
  });
}

test("a key written after the worker started is in its next list (it reads what is committed)", async () => {
  const before = (JSON.parse(await whole(worker, {})) as unknown[]).length;
  const added = data.apiKeys.insert(
    owner.id,
    owner.accountKey,
    { key: newKeyId(), publicApiKey: newPublicApiKey() },
    { name: "late", allowedIPs: null, permissions: ["ALL"], validFrom: null, validTo: null, enabled: true },
    SIZE,
  );
  const keys = JSON.parse(await whole(worker, {})) as { key: string }[];
  assert.equal(keys.length, before + 1);
  assert.equal(keys.at(-1)?.key, added.key);
});

test("a worker that cannot open the database fails the request with the reason, and the next one tries again", async () => {
  const broken = workerLister(keyListWorkerUrl() as URL, {
    databaseFile: `${dir}/no-such-dir/keydesk.db`,
    dataKey: data.dataKey,
  });
  try {
    await assert.rejects(broken.count(owner.id, {}), /Cannot open database|unable to open database/);
    await assert.rejects(broken.count(owner.id, {}), /Cannot open database|unable to open database/);
  } finally {
    await broken.close();
  }
});

test("close fails what is in flight with a clear reason, and a later request starts a new worker", async () => {
  const lister = workerLister(keyListWorkerUrl() as URL, {
    databaseFile: data.databaseFile,
    dataKey: data.dataKey,
  });
  const refused = assert.rejects(lister.count(owner.id, {}), /the service is stopping/);
  await lister.close();
  await refused;
  try {
    assert.equal(await lister.count(owner.id, {}), await inThread.count(owner.id, {}));
  } finally {
    await lister.close();
  }
});

test("an aborted list asks for nothing more", async () => {
  const controller = new AbortController();
  const pieces = worker.pieces(owner, {}, controller.signal);
  controller.abort(new Error("client went away"));
  await assert.rejects(pieces.next(), /client went away/);
});

/** A thread's timer slack (ns), or undefined where Linux does not let this process read it. */
function timerSlack(thread: string): string | undefined {
  try {
    return readFileSync(`/proc/${thread}/timerslack_ns`, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPERM") return undefined;
    throw error;
  }
}

test("a list longer than one piece is read by workers that run only on CPU time nothing else wants and sleep precisely (Linux)", {
  skip: process.platform !== "linux" && "SCHED_IDLE is Linux's",
}, async (t) => {
  const lister = workerLister(keyListWorkerUrl() as URL, {
    databaseFile: data.databaseFile,
    dataKey: data.dataKey,
  });
  try {
    const idleBefore = threadPolicies().filter((thread) => thread.policy === SCHED_IDLE).length;
    const pieces: Buffer[] = [];
    for await (const piece of lister.pieces(owner, {})) pieces.push(Buffer.from(piece));
    const idle = threadPolicies().filter((thread) => thread.policy === SCHED_IDLE);
    assert.ok(idle.length > idleBefore);
    // Their yields between steps sleep as long as asked (threadPriority.ts: preciseSleepsThisThread).
    // Another thread's timer slack can be read only with CAP_SYS_NICE (root, as in CI's job 2).
    for (const thread of idle) {
      const slack = timerSlack(thread.id);
      if (slack === undefined) t.diagnostic("timer slack not checked: reading it needs CAP_SYS_NICE");
      else assert.equal(slack, "1");
    }
    assert.equal(`[${Buffer.concat(pieces).toString("utf8")}]`, await whole(inThread, {}));
  } finally {
    await lister.close();
  }
});

test("a piece handed back once written goes back to its worker, and the lists after it are whole", async () => {
  const expected = await whole(inThread, {});
  for (let run = 0; run < 3; run++) {
    const pieces: Buffer[] = [];
    let handedBack = 0;
    for await (const piece of worker.pieces(owner, {})) {
      pieces.push(Buffer.from(piece));
      const memory = (piece as Uint8Array).buffer;
      worker.recycle?.(piece as Uint8Array);
      // A transferred buffer is detached here: its memory now belongs to the worker again.
      if (memory.byteLength === 0) handedBack++;
    }
    assert.equal(`[${Buffer.concat(pieces).toString("utf8")}]`, expected);
    // The foreground worker's first piece as well as every background window.
    assert.equal(handedBack, pieces.length);
  }
});

test("windows of long names in three-byte characters (more than a window's first buffer) are listed whole", async () => {
  const wide = addStoredAccount(data, "wide");
  data.db.transaction(() => {
    for (let index = 0; index < 3_500; index++) {
      data.apiKeys.insert(
        wide.id,
        wide.accountKey,
        { key: newKeyId(), publicApiKey: newPublicApiKey() },
        {
          name: `${"鍵".repeat(240)} ${index}`,
          allowedIPs: null,
          permissions: ["ALL"],
          validFrom: null,
          validTo: null,
          enabled: true,
        },
        index,
      );
    }
  })();
  const account = { id: wide.id, accountKey: wide.accountKey };
  const listed = await whole(worker, {}, account);
  assert.equal(listed, await whole(inThread, {}, account));
  assert.equal((JSON.parse(listed) as unknown[]).length, 3_500);
});

test("an exact name matching more keys than one piece holds is listed whole, piece after piece", async () => {
  data.db.transaction(() => {
    for (let index = 0; index < 1_500; index++) {
      data.apiKeys.insert(
        owner.id,
        owner.accountKey,
        { key: newKeyId(), publicApiKey: newPublicApiKey() },
        {
          name: "twin",
          allowedIPs: null,
          permissions: ["ALL"],
          validFrom: null,
          validTo: null,
          enabled: true,
        },
        SIZE + index,
      );
    }
  })();
  const listed = await whole(worker, { name: "twin" });
  assert.equal((JSON.parse(listed) as unknown[]).length, 1_500);
  assert.equal(listed, await whole(inThread, { name: "twin" }));
});

test("a list in another order than creation is listed whole in that order, piece after piece", async () => {
  for (const sort of [
    { by: "name", desc: false },
    { by: "created", desc: true },
  ] as const) {
    const listed = await whole(worker, { sort });
    assert.equal(listed, await whole(inThread, { sort }));
    assert.ok((JSON.parse(listed) as unknown[]).length > 1_024);
  }
});

test("the pieces of a list read by the foreground worker alone go back to it too, and later lists are whole", async () => {
  const sort = { by: "name", desc: false } as const;
  const expected = await whole(inThread, { sort });
  for (let run = 0; run < 3; run++) {
    const pieces: Buffer[] = [];
    let handedBack = 0;
    for await (const piece of worker.pieces(owner, { sort })) {
      pieces.push(Buffer.from(piece));
      const memory = (piece as Uint8Array).buffer;
      worker.recycle?.(piece as Uint8Array);
      if (memory.byteLength === 0) handedBack++;
    }
    assert.ok(pieces.length > 1);
    assert.equal(handedBack, pieces.length);
    assert.equal(`[${Buffer.concat(pieces).toString("utf8")}]`, expected);
  }
});

test("workerCounts: none before the first request, busy while one is in flight, idle once answered", async () => {
  const lister = workerLister(keyListWorkerUrl() as URL, {
    databaseFile: data.databaseFile,
    dataKey: data.dataKey,
  });
  try {
    assert.deepEqual(lister.workerCounts?.(), { running: 0, busy: 0 });
    const counting = lister.count(owner.id, {});
    assert.deepEqual(lister.workerCounts?.(), { running: 1, busy: 1 });
    assert.ok((await counting) > 0);
    assert.deepEqual(lister.workerCounts?.(), { running: 1, busy: 0 });
  } finally {
    await lister.close();
  }
  assert.deepEqual(lister.workerCounts?.(), { running: 0, busy: 0 });
});
