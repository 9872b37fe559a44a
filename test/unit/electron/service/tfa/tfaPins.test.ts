import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, test } from "node:test";
import { openDataDir } from "../../../../../electron/service/dataDir.ts";
import type { Account } from "../../../../../electron/service/domain/accounts.ts";
import { newAccountKey } from "../../../../../electron/service/domain/identifiers.ts";
import type { PinRecord } from "../../../../../electron/service/domain/tfaRecords.ts";
import type { Store, StoreWrite } from "../../../../../electron/service/store/store.ts";
import { PinEvents } from "../../../../../electron/service/tfa/pinEvents.ts";
import { TfaApplications } from "../../../../../electron/service/tfa/tfaApplications.ts";
import { TfaPins } from "../../../../../electron/service/tfa/tfaPins.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

/**
 * TfaPins on a real SQLite store. First, verification when the PIN changes between the call's
 * read and its write, as when another replica on a shared database verifies it at the same
 * moment. One SQLite process never does that (a write holds the database), so the change is made
 * inside the call's own write, right after its first read of the PIN: the state the call read is
 * then no longer the state stored. Then PIN status, which TfaPins answers from memory, against
 * changes made here and elsewhere.
 */

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

type Change = (tx: StoreWrite, pin: PinRecord) => Promise<unknown>;

/** The store, except that `change` runs once, right after a write first reads the PIN. */
function changedAfterRead(store: Store, change: Change): Store {
  let pending: Change | undefined = change;
  return {
    ...store,
    write: (work) =>
      store.write((tx) => {
        const record = async (pinId: string) => {
          const read = await tx.tfaPins.record(pinId);
          if (read && pending) {
            const elsewhere = pending;
            pending = undefined;
            await elsewhere(tx, read);
          }
          return read;
        };
        return work({ ...tx, tfaPins: { ...tx.tfaPins, record } });
      }),
  };
}

/** A PIN "1234" sent by a fresh account's application with `configuration`; the verify side races `change`. */
async function sentPin(configuration: Record<string, unknown>, change: Change) {
  const dir = await makeTempDir();
  dirs.push(dir);
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const account: Account = await data.store.write((tx) =>
    tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "owner",
      passwordHash: "hash",
      parentId: null,
      createdAt: 1,
    }),
  );
  let digit = 0;
  // NUMERIC digits 1, 2, 3, 4: the PIN is "1234".
  const options = { randomIndex: () => (digit++ % 4) + 1 };
  const applications = new TfaApplications(data.store);
  const sender = new TfaPins(applications, data.store, new PinEvents(), options);
  const { applicationId } = await applications.create(account, {
    name: "login",
    configuration: { verifyPinLimit: "100/1s", ...configuration },
  });
  const { messageId } = await applications.createTemplate(account, applicationId, {
    messageText: "{{pin}}",
    pinType: "NUMERIC",
  });
  const { pinId } = await sender.sendSms(account, {}, { applicationId, messageId, to: "41790000000" });
  const raced = changedAfterRead(data.store, change);
  const verifier = new TfaPins(applications, raced, new PinEvents());
  return {
    verify: (pin: string) => verifier.verify(account, pinId, { pin }),
    status: () => verifier.status(account, pinId),
    close: () => data.close(),
  };
}

const spendOne: Change = (tx, pin) => tx.tfaPins.spendAttempt(pin);
const verifyIt: Change = (tx, pin) => tx.tfaPins.markVerified(pin, 5);

test("a wrong PIN answers the attempts left after its own, counting one spent since it read the PIN", async () => {
  const pin = await sentPin({ pinAttempts: 3 }, spendOne);
  const answer = await pin.verify("9999");
  assert.equal(answer.pinError, "WRONG_PIN");
  assert.equal(answer.attemptsRemaining, 1, "3, one spent elsewhere, one by this call");
  assert.equal((await pin.status()).attemptsRemaining, 1);
  pin.close();
});

test("a wrong PIN whose last attempt was spent since it read the PIN answers NO_MORE_PIN_ATTEMPTS and spends nothing", async () => {
  const pin = await sentPin({ pinAttempts: 1 }, spendOne);
  const answer = await pin.verify("9999");
  assert.deepEqual(
    [answer.verified, answer.pinError, answer.attemptsRemaining],
    [false, "NO_MORE_PIN_ATTEMPTS", 0],
  );
  assert.equal((await pin.status()).attemptsRemaining, 0);
  pin.close();
});

test("the right PIN whose last attempt was spent since it read the PIN does not verify", async () => {
  const pin = await sentPin({ pinAttempts: 1 }, spendOne);
  const answer = await pin.verify("1234");
  assert.deepEqual([answer.verified, answer.pinError], [false, "NO_MORE_PIN_ATTEMPTS"]);
  assert.equal((await pin.status()).verified, false);
  pin.close();
});

test("the right PIN verified elsewhere since it was read: verified again where allowed, NO_MORE_PIN_ATTEMPTS where not", async () => {
  const allowed = await sentPin({ allowMultiplePinVerifications: true }, verifyIt);
  assert.equal((await allowed.verify("1234")).verified, true);
  allowed.close();
  const once = await sentPin({ allowMultiplePinVerifications: false }, verifyIt);
  const answer = await once.verify("1234");
  assert.deepEqual([answer.verified, answer.pinError], [false, "NO_MORE_PIN_ATTEMPTS"]);
  assert.equal((await once.status()).verified, true, "verified once, by the other call");
  once.close();
});

test("PIN status, served from memory, sees a verification through this process and one committed by another at the next call", async () => {
  const dir = await makeTempDir();
  dirs.push(dir);
  const dataKey = randomBytes(32);
  const here = openDataDir({ dataDir: dir, dataKey });
  const account: Account = await here.store.write((tx) =>
    tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "owner",
      passwordHash: "hash",
      parentId: null,
      createdAt: 1,
    }),
  );
  const applications = new TfaApplications(here.store);
  const pins = new TfaPins(applications, here.store, new PinEvents());
  const { applicationId } = await applications.create(account, {
    name: "login",
    configuration: { verifyPinLimit: "100/1s" },
  });
  const { messageId } = await applications.createTemplate(account, applicationId, {
    messageText: "{{pin}}",
    pinType: "ALPHA",
  });
  const { pinId } = await pins.sendSms(account, {}, { applicationId, messageId, to: "41790000000" });
  assert.equal((await pins.status(account, pinId)).attemptsRemaining, 10);

  await pins.verify(account, pinId, { pin: "0" });
  assert.equal((await pins.status(account, pinId)).attemptsRemaining, 9, "this process's verify");

  const elsewhere = openDataDir({ dataDir: dir, dataKey });
  const otherPins = new TfaPins(new TfaApplications(elsewhere.store), elsewhere.store, new PinEvents());
  await otherPins.verify(account, pinId, { pin: "0" });
  elsewhere.close();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal((await pins.status(account, pinId)).attemptsRemaining, 8, "another process's verify");
  here.close();
});
