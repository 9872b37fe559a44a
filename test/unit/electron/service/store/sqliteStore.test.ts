import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { DATABASE_FILE, openDataDir } from "../../../../../electron/service/dataDir.ts";
import {
  newAccountKey,
  newKeyId,
  newPublicApiKey,
} from "../../../../../electron/service/domain/identifiers.ts";
import { DuplicateError, type Store } from "../../../../../electron/service/store/store.ts";
import {
  applicationForCreate,
  templateForCreate,
} from "../../../../../electron/service/tfa/applicationRules.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

async function fresh() {
  const dir = await makeTempDir();
  dirs.push(dir);
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const other = new Database(join(dir, DATABASE_FILE), { readonly: true });
  const count = (table: string) => other.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
  const close = () => {
    other.close();
    data.close();
  };
  return { data, store: data.store, count, close };
}

const newAccount = (username: string) => ({
  accountKey: newAccountKey(),
  username,
  passwordHash: "hash",
  parentId: null,
  createdAt: 1,
});

const fields = {
  name: "k",
  allowedIPs: null,
  permissions: ["ALL" as const],
  validFrom: null,
  validTo: null,
  enabled: true,
};

test("a write's rows are committed (seen by another connection) when its promise resolves, and read back as domain types", async () => {
  const { store, count, close } = await fresh();
  const publicApiKey = newPublicApiKey();
  const created = await store.write(async (tx) => {
    const account = await tx.accounts.insert(newAccount("ana"));
    return tx.apiKeys.insert(account.id, account.accountKey, { key: newKeyId(), publicApiKey }, fields, 5);
  });
  assert.equal(count("api_keys"), 1);
  const account = await store.accounts.byUsername("ana");
  assert.equal(account?.id, created.accountId);
  assert.deepEqual(await store.apiKeys.get(created.accountId, created.key), created);
  assert.deepEqual(await store.apiKeys.findByPublicApiKey(publicApiKey), created);
  const grant = await store.apiKeys.grantByDigest(store.apiKeys.digestOf(publicApiKey));
  assert.equal(grant?.key, created.key);
  close();
});

test("a write that throws leaves nothing behind and rejects with what it threw", async () => {
  const { store, count, close } = await fresh();
  await assert.rejects(
    store.write(async (tx) => {
      await tx.accounts.insert(newAccount("bo"));
      throw new Error("changed my mind");
    }),
    /changed my mind/,
  );
  assert.equal(count("accounts"), 0);
  assert.equal(await store.accounts.byUsername("bo"), undefined);
  close();
});

test("an account whose username is taken is refused with a DuplicateError", async () => {
  const { store, close } = await fresh();
  await store.write((tx) => tx.accounts.insert(newAccount("cy")));
  await assert.rejects(
    store.write((tx) => tx.accounts.insert(newAccount("cy"))),
    (error) => error instanceof DuplicateError,
  );
  assert.equal((await store.accounts.list()).length, 1);
  close();
});

test("a store read that fails rejects its promise instead of throwing at the caller", async () => {
  const { data, store } = await fresh();
  data.close();
  const read = store.accounts.byId(1);
  assert.ok(read instanceof Promise);
  await assert.rejects(read);
});

/** An account with one 2FA application, one template and one PIN with `attempts` left, sent at time 10. */
async function sentPin(store: Store, attempts: number) {
  return store.write(async (tx) => {
    const account = await tx.accounts.insert(newAccount("pin-owner"));
    const application = await tx.tfa.insertApplication(
      account.id,
      newKeyId(),
      applicationForCreate({ name: "login" }),
      10,
    );
    const template = await tx.tfa.insertTemplate(
      application,
      newKeyId(),
      templateForCreate({ messageText: "{{pin}}", pinType: "NUMERIC" }),
      10,
    );
    const pinId = newKeyId();
    const id = await tx.tfaPins.insertPin(
      {
        pinId,
        accountId: account.id,
        applicationRef: application.id,
        templateRef: template.id,
        msisdn: "41790000000",
        pin: "1234",
        sent: true,
        createdAt: 10,
        expiresAt: 1_000,
        attemptsRemaining: attempts,
      },
      {
        accountId: account.id,
        applicationRef: application.id,
        msisdn: "41790000000",
        channel: "SMS",
        text: "1234",
        sentAt: 10,
      },
    );
    return { id, pinId, application, template };
  });
}

test("2FA rows written through the store read back as domain types, the PIN decrypted, the template with its application", async () => {
  const { store, close } = await fresh();
  const { pinId, application, template } = await sentPin(store, 3);
  assert.deepEqual(
    await store.tfa.application(application.accountId, application.applicationId),
    application,
  );
  assert.deepEqual(await store.tfa.templates(application), [template]);
  const record = await store.tfaPins.record(pinId);
  assert.equal(record?.pin, "1234");
  assert.equal(record?.applicationId, application.applicationId);
  assert.equal(record?.messageId, template.messageId);
  assert.deepEqual(await store.tfaPins.status(pinId), {
    pinId,
    accountId: application.accountId,
    msisdn: "41790000000",
    verified: false,
    attemptsRemaining: 3,
    expiresAt: 1_000,
  });
  close();
});

test("an attempt is spent only while one is left: each write answers what is left after it, never below zero", async () => {
  const { store, close } = await fresh();
  const pin = await sentPin(store, 2);
  const left = await Promise.all(
    Array.from({ length: 4 }, () => store.write((tx) => tx.tfaPins.spendAttempt(pin))),
  );
  assert.deepEqual(left.sort(), [0, 1, undefined, undefined]);
  assert.equal((await store.tfaPins.status(pin.pinId))?.attemptsRemaining, 0);
  close();
});

test("a PIN is marked verified once, only while it has an attempt left; the first time is kept", async () => {
  const { store, close } = await fresh();
  const pin = await sentPin(store, 1);
  assert.equal(await store.write((tx) => tx.tfaPins.markVerified(pin, 20)), true);
  assert.equal(await store.write((tx) => tx.tfaPins.markVerified(pin, 30)), false, "already verified");
  assert.equal((await store.tfaPins.status(pin.pinId))?.verified, true);
  const [verification] = await store.tfaPins.verifications(pin.application.id, "41790000000", {});
  assert.equal(verification?.verifiedAt, 20);

  const usedUp = await store.write(async (tx) => {
    const accountId = pin.application.accountId;
    const id = await tx.tfaPins.insertPin(
      {
        pinId: newKeyId(),
        accountId,
        applicationRef: pin.application.id,
        templateRef: pin.template.id,
        msisdn: "41790000001",
        pin: "9999",
        sent: true,
        createdAt: 11,
        expiresAt: 1_000,
        attemptsRemaining: 0,
      },
      {
        accountId,
        applicationRef: pin.application.id,
        msisdn: "41790000001",
        channel: "SMS",
        text: null,
        sentAt: 11,
      },
    );
    return id;
  });
  assert.equal(
    await store.write((tx) => tx.tfaPins.markVerified({ id: usedUp, pinId: "unused" }, 40)),
    false,
    "no attempt left",
  );
  close();
});

test("a meta value written in a write is read back, and a second write replaces it", async () => {
  const { store, close } = await fresh();
  assert.equal(await store.meta.read("flag"), undefined);
  await store.write((tx) => tx.meta.write("flag", "one"));
  await store.write((tx) => tx.meta.write("flag", "two"));
  assert.equal(await store.meta.read("flag"), "two");
  close();
});

test("health: ready resolves while the database answers and rejects once it cannot", async () => {
  const { data, store } = await fresh();
  await store.health.ready();
  data.close();
  await assert.rejects(store.health.ready());
});
