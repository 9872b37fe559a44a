import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Account } from "../../../../electron/service/domain/accounts.ts";
import { newAccountKey, newKeyId } from "../../../../electron/service/domain/identifiers.ts";
import type { StoredApplication, TemplateFields } from "../../../../electron/service/domain/tfaRecords.ts";
import type { Store } from "../../../../electron/service/store/store.ts";
import { VERIFY_CALL_PURGE_BATCH } from "../../../../electron/service/store/tfaPinRows.ts";
import { takeVerifyCall } from "../../../../electron/service/tfa/verifyCallLimit.ts";
import type { ApplicationConfigurationDto, Channel } from "../../../../shared/tfa.ts";
import { DEFAULT_CONFIGURATION, MAX_DURATION_MS } from "../../../../shared/tfaSchemas.ts";
import { openStore, STORE_KINDS, storedRows } from "./storeSubjects.ts";

/**
 * The 2FA repositories' contract (store.tfa, store.tfaPins), asserted identically on SQLite and
 * on PostgreSQL: applications and templates, PINs and their messages, the reads the send limits
 * count with, the conditional writes of verification and the PIN inbox.
 */

const NOW = 1_750_000_000_000;

const newAccount = (username: string, parentId: number | null = null): Omit<Account, "id"> => ({
  accountKey: newAccountKey(),
  username,
  passwordHash: `hash of ${username}`,
  parentId,
  createdAt: NOW,
});

const configuration: ApplicationConfigurationDto = { ...DEFAULT_CONFIGURATION, pinAttempts: 3 };

const templateFields: TemplateFields = {
  messageText: "Your code is {{pin}}",
  pinType: "NUMERIC",
  pinLength: 4,
  language: "en",
  senderId: "Keydesk",
  repeatDTMF: null,
  speechRate: 1,
  voiceName: null,
  regional: null,
};

/** An account with one application and one template. */
async function accountWithApplication(store: Store, username = "ana") {
  return store.write(async (tx) => {
    const account = await tx.accounts.insert(newAccount(username));
    const application = await tx.tfa.insertApplication(
      account.id,
      newKeyId(),
      { name: `login of ${username}`, enabled: true, configuration },
      NOW,
    );
    const template = await tx.tfa.insertTemplate(application, newKeyId(), templateFields, NOW);
    return { account, application, template };
  });
}

interface Sent {
  id: number;
  pinId: string;
}

/** Sends a PIN (its first message) at `at`; `delivered: false` stores no text, as for a failing test number. */
async function sendPin(
  store: Store,
  setup: Awaited<ReturnType<typeof accountWithApplication>>,
  msisdn: string,
  at: number,
  options: { pin?: string; delivered?: boolean; channel?: Channel; attempts?: number } = {},
): Promise<Sent> {
  const pinId = newKeyId();
  const pin = options.pin ?? "1234";
  const delivered = options.delivered ?? true;
  const id = await store.write((tx) =>
    tx.tfaPins.insertPin(
      {
        pinId,
        accountId: setup.account.id,
        applicationRef: setup.application.id,
        templateRef: setup.template.id,
        msisdn,
        pin,
        sent: delivered,
        createdAt: at,
        expiresAt: at + 900_000,
        attemptsRemaining: options.attempts ?? 3,
      },
      {
        accountId: setup.account.id,
        applicationRef: setup.application.id,
        msisdn,
        channel: options.channel ?? "SMS",
        text: delivered ? `Your code is ${pin}` : null,
        sentAt: at,
      },
    ),
  );
  return { id, pinId };
}

for (const kind of STORE_KINDS) {
  describe(`the ${kind} store's 2FA repositories`, () => {
    test("applications are written, read back in their account only, in creation order, and updated", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { account, application } = await accountWithApplication(store, "ana");
      const { account: other } = await accountWithApplication(store, "bo");
      assert.deepEqual(application, {
        id: application.id,
        applicationId: application.applicationId,
        accountId: account.id,
        name: "login of ana",
        enabled: true,
        configuration,
      });
      const second = await store.write((tx) =>
        tx.tfa.insertApplication(
          account.id,
          newKeyId(),
          { name: "second", enabled: false, configuration: DEFAULT_CONFIGURATION },
          NOW + 1,
        ),
      );
      assert.equal(second.enabled, false);
      assert.deepEqual(await store.tfa.application(account.id, application.applicationId), application);
      assert.equal(await store.tfa.application(other.id, application.applicationId), undefined);
      assert.deepEqual(await store.tfa.applications(account.id), [application, second]);

      const changed = {
        name: "renamed",
        enabled: false,
        configuration: { ...configuration, pinTimeToLive: "5m", allowMultiplePinVerifications: false },
      };
      const updated = await store.write(async (tx) => {
        const stored = (await tx.tfa.application(account.id, application.applicationId)) as StoredApplication;
        return tx.tfa.updateApplication(stored, changed, NOW + 2);
      });
      assert.deepEqual(updated, { ...application, ...changed });
      assert.deepEqual(await store.tfa.application(account.id, application.applicationId), updated);
    });

    test("templates are written, read back in their application only, in creation order, and updated", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { application, template } = await accountWithApplication(store, "ana");
      const { application: otherApplication } = await accountWithApplication(store, "bo");
      assert.deepEqual(template, {
        ...templateFields,
        id: template.id,
        messageId: template.messageId,
        applicationRef: application.id,
        applicationId: application.applicationId,
      });
      const voice = {
        ...templateFields,
        pinType: "ALPHANUMERIC" as const,
        voiceName: "Joanna",
        speechRate: 1.5,
      };
      const second = await store.write((tx) => tx.tfa.insertTemplate(application, newKeyId(), voice, NOW));
      assert.deepEqual(await store.tfa.template(application, template.messageId), template);
      assert.equal(await store.tfa.template(otherApplication, template.messageId), undefined);
      assert.deepEqual(await store.tfa.templates(application), [template, second]);

      const changed = {
        ...templateFields,
        messageText: "Code: {{pin}}",
        regional: { indiaDlt: { principalEntityId: "1001" } },
      };
      const updated = await store.write((tx) => tx.tfa.updateTemplate(template, changed, NOW + 1));
      assert.deepEqual(updated, { ...template, ...changed });
      assert.deepEqual(await store.tfa.template(application, template.messageId), updated);
    });

    test("a sent PIN reads back as its status (nothing unsealed), as a record with its PIN unsealed, and in verifications", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const setup = await accountWithApplication(store);
      const first = await sendPin(store, setup, "41790000001", NOW, { pin: "4821" });
      const failed = await sendPin(store, setup, "41790000001", NOW + 1, { delivered: false });
      await sendPin(store, setup, "41790000002", NOW + 2);
      assert.deepEqual(await store.tfaPins.status(first.pinId), {
        pinId: first.pinId,
        accountId: setup.account.id,
        msisdn: "41790000001",
        verified: false,
        attemptsRemaining: 3,
        expiresAt: NOW + 900_000,
      });
      assert.deepEqual(await store.tfaPins.record(first.pinId), {
        pinId: first.pinId,
        accountId: setup.account.id,
        msisdn: "41790000001",
        verified: false,
        attemptsRemaining: 3,
        expiresAt: NOW + 900_000,
        id: first.id,
        applicationRef: setup.application.id,
        applicationId: setup.application.applicationId,
        applicationEnabled: true,
        configuration,
        templateRef: setup.template.id,
        messageId: setup.template.messageId,
        template: templateFields,
        pin: "4821",
      });
      assert.equal(await store.tfaPins.status(newKeyId()), undefined);
      assert.equal(await store.tfaPins.record(newKeyId()), undefined);

      await store.write((tx) => tx.tfaPins.markVerified(first, NOW + 10));
      const verifications = (filter: { verified?: boolean; sent?: boolean }) =>
        store.tfaPins.verifications(setup.application.id, "41790000001", filter);
      assert.deepEqual(await verifications({}), [
        { msisdn: "41790000001", verified: false, verifiedAt: null, sentAt: NOW + 1 },
        { msisdn: "41790000001", verified: true, verifiedAt: NOW + 10, sentAt: NOW },
      ]);
      assert.deepEqual(
        (await verifications({ verified: true })).map((row) => row.sentAt),
        [NOW],
      );
      assert.deepEqual(
        (await verifications({ sent: false })).map((row) => row.sentAt),
        [NOW + 1],
      );
      assert.deepEqual(await verifications({ verified: true, sent: false }), []);
      assert.equal((await store.tfaPins.status(failed.pinId))?.verified, false);
    });

    test("the send limits' reads count every message of the application, and of one number, resends included", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const setup = await accountWithApplication(store);
      const other = await accountWithApplication(store, "bo");
      const first = await sendPin(store, setup, "41790000001", NOW);
      await sendPin(store, setup, "41790000002", NOW + 10);
      await sendPin(store, other, "41790000001", NOW + 15);
      await store.write((tx) =>
        tx.tfaPins.recordResend({
          pinRef: first.id,
          pinId: first.pinId,
          accountId: setup.account.id,
          applicationRef: setup.application.id,
          msisdn: "41790000001",
          channel: "VOICE",
          text: "Your code is 1234",
          sentAt: NOW + 20,
        }),
      );
      const ref = setup.application.id;
      const nth = (n: number) => store.write((tx) => tx.tfaPins.nthNewestSend(ref, n));
      const nthTo = (msisdn: string, n: number) =>
        store.write((tx) => tx.tfaPins.nthNewestSendTo(ref, msisdn, n));
      assert.deepEqual(
        [await nth(1), await nth(2), await nth(3), await nth(4)],
        [NOW + 20, NOW + 10, NOW, undefined],
      );
      assert.deepEqual(
        [await nthTo("41790000001", 1), await nthTo("41790000001", 2), await nthTo("41790000001", 3)],
        [NOW + 20, NOW, undefined],
      );
      assert.equal(await nthTo("41790000009", 1), undefined);
      // Read and insert in one write: the write counts its own send.
      await store.write(async (tx) => {
        assert.equal(await tx.tfaPins.nthNewestSend(ref, 1), NOW + 20);
        await tx.tfaPins.recordResend({
          pinRef: first.id,
          pinId: first.pinId,
          accountId: setup.account.id,
          applicationRef: ref,
          msisdn: "41790000001",
          channel: "SMS",
          text: null,
          sentAt: NOW + 30,
        });
        assert.equal(await tx.tfaPins.nthNewestSend(ref, 1), NOW + 30);
      });
    });

    test("an attempt is spent only while one is left, and never below zero", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const setup = await accountWithApplication(store);
      const pin = await sendPin(store, setup, "41790000001", NOW, { attempts: 2 });
      const spend = () => store.write((tx) => tx.tfaPins.spendAttempt(pin));
      assert.deepEqual(
        [await spend(), await spend(), await spend(), await spend()],
        [1, 0, undefined, undefined],
      );
      assert.equal((await store.tfaPins.status(pin.pinId))?.attemptsRemaining, 0);
      const shared = await sendPin(store, setup, "41790000003", NOW, { attempts: 4 });
      const lefts = await Promise.all(
        Array.from({ length: 7 }, () => store.write((tx) => tx.tfaPins.spendAttempt(shared))),
      );
      assert.deepEqual(
        lefts.filter((left) => left !== undefined).sort(),
        [0, 1, 2, 3],
        "each of the 4 attempts spent by exactly one call",
      );
      assert.equal((await store.tfaPins.status(shared.pinId))?.attemptsRemaining, 0);
    });

    test("verifyPinLimit: each PIN gets `attempts` calls per sliding window; refused calls are not counted", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const setup = await accountWithApplication(store);
      const a = await sendPin(store, setup, "41790000001", NOW);
      const b = await sendPin(store, setup, "41790000002", NOW);
      const limit = { attempts: 2, windowMs: 1000 };
      const take = (pin: Sent, at: number, by = limit) =>
        store.write((tx) => takeVerifyCall(tx.tfaPins, pin, by, NOW + at));
      assert.deepEqual(await take(a, 0), { allowed: true });
      assert.deepEqual(await take(a, 100), { allowed: true });
      assert.deepEqual(await take(a, 200), { allowed: false, retryAfterMs: 800 });
      assert.deepEqual(await take(a, 999), { allowed: false, retryAfterMs: 1 });
      assert.deepEqual(await take(a, 1000), { allowed: true }, "the first call left the window");
      assert.deepEqual(await take(a, 1050), { allowed: false, retryAfterMs: 50 });
      assert.deepEqual(await take(b, 1050), { allowed: true }, "another PIN has its own window");
      // A changed limit applies to the next call; calls out of the window it replaced count no more.
      assert.deepEqual(await take(a, 1060, { attempts: 5, windowMs: 1000 }), { allowed: true });
      assert.deepEqual(await take(a, 1070, { attempts: 1, windowMs: 5 }), { allowed: true });
      const longer = { attempts: 2, windowMs: 10_000 };
      assert.deepEqual(await take(a, 1071, longer), { allowed: true }, "1000 and 1060 left the 5 ms window");
      assert.deepEqual(await take(a, 1072, longer), { allowed: false, retryAfterMs: 9998 });
    });

    test("verifyPinLimit: calls at once are allowed exactly up to the limit; a rolled-back call is not counted", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const setup = await accountWithApplication(store);
      const pin = await sendPin(store, setup, "41790000001", NOW);
      const limit = { attempts: 3, windowMs: 60_000 };
      await assert.rejects(
        store.write(async (tx) => {
          await takeVerifyCall(tx.tfaPins, pin, limit, NOW);
          throw new Error("the verify failed");
        }),
        /the verify failed/,
      );
      const decisions = await Promise.all(
        Array.from({ length: 7 }, (_, i) =>
          store.write((tx) => takeVerifyCall(tx.tfaPins, pin, limit, NOW + i)),
        ),
      );
      assert.equal(decisions.filter((decision) => decision.allowed).length, 3);
    });

    test("verifyPinLimit: calls older than any limit's window leave the table, a batch per call", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const setup = await accountWithApplication(store);
      const old = await sendPin(store, setup, "41790000001", NOW);
      const recent = await sendPin(store, setup, "41790000002", NOW);
      const limit = { attempts: 1000, windowMs: 1000 };
      for (let i = 0; i < VERIFY_CALL_PURGE_BATCH + 5; i++) {
        await store.write((tx) => takeVerifyCall(tx.tfaPins, old, limit, NOW + i));
      }
      const later = NOW + MAX_DURATION_MS + 10_000;
      await store.write((tx) => takeVerifyCall(tx.tfaPins, recent, limit, later));
      assert.equal((await storedRows(subject, "tfa_verify_calls")).length, 5 + 1, "one batch went");
      await store.write((tx) => takeVerifyCall(tx.tfaPins, recent, limit, later + 1));
      const left = await storedRows(subject, "tfa_verify_calls");
      assert.deepEqual(
        left.map((row) => Number(row.pin_ref)),
        [recent.id, recent.id],
        "the rest went with the next call",
      );
    });

    test("a PIN is marked verified once, keeping the first time, and never without an attempt left", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const setup = await accountWithApplication(store);
      const pin = await sendPin(store, setup, "41790000001", NOW);
      const mark = (target: Sent, at: number) => store.write((tx) => tx.tfaPins.markVerified(target, at));
      assert.equal(await mark(pin, NOW + 5), true);
      assert.equal(await mark(pin, NOW + 6), false, "already verified");
      assert.deepEqual(
        (await store.tfaPins.verifications(setup.application.id, "41790000001", {})).map((row) => [
          row.verified,
          row.verifiedAt,
        ]),
        [[true, NOW + 5]],
      );
      const spent = await sendPin(store, setup, "41790000002", NOW, { attempts: 1 });
      await store.write((tx) => tx.tfaPins.spendAttempt(spent));
      assert.equal(await mark(spent, NOW + 5), false, "no attempt left");
      assert.equal((await store.tfaPins.status(spent.pinId))?.verified, false);
      const raced = await sendPin(store, setup, "41790000003", NOW);
      const marks = await Promise.all(Array.from({ length: 5 }, (_, i) => mark(raced, NOW + 10 + i)));
      assert.equal(marks.filter(Boolean).length, 1, "one call of five marks it");
    });

    test("a rolled-back send leaves neither the PIN nor its message", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const setup = await accountWithApplication(store);
      const pinId = newKeyId();
      await assert.rejects(
        store.write(async (tx) => {
          await tx.tfaPins.insertPin(
            {
              pinId,
              accountId: setup.account.id,
              applicationRef: setup.application.id,
              templateRef: setup.template.id,
              msisdn: "41790000001",
              pin: "1234",
              sent: true,
              createdAt: NOW,
              expiresAt: NOW + 1,
              attemptsRemaining: 3,
            },
            {
              accountId: setup.account.id,
              applicationRef: setup.application.id,
              msisdn: "41790000001",
              channel: "SMS",
              text: "1234",
              sentAt: NOW,
            },
          );
          throw new Error("changed my mind");
        }),
        /changed my mind/,
      );
      assert.equal(await store.tfaPins.status(pinId), undefined);
      assert.equal(await store.write((tx) => tx.tfaPins.nthNewestSend(setup.application.id, 1)), undefined);
      assert.deepEqual(await store.tfaPins.captured({ accountIds: [setup.account.id], limit: 10 }), []);
    });

    test("the inbox lists delivered messages of the given accounts newest first, filtered, in pages, with the PIN's state now", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const ana = await accountWithApplication(store, "ana");
      const bo = await accountWithApplication(store, "bo");
      const cy = await accountWithApplication(store, "cy");
      const second = await store.write((tx) =>
        tx.tfa.insertApplication(
          ana.account.id,
          newKeyId(),
          { name: "signup", enabled: true, configuration },
          NOW,
        ),
      );
      const anaSignup = { ...ana, application: second };
      const a1 = await sendPin(store, ana, "41790000001", NOW + 1, { pin: "1111" });
      await sendPin(store, bo, "41790000002", NOW + 2, { pin: "2222", channel: "VOICE" });
      await sendPin(store, ana, "41790000003", NOW + 3, { delivered: false });
      await sendPin(store, cy, "41790000004", NOW + 4);
      const a5 = await sendPin(store, anaSignup, "41790055555", NOW + 5, { pin: "5555" });
      await store.write(async (tx) => {
        await tx.tfaPins.spendAttempt(a1);
        await tx.tfaPins.markVerified(a5, NOW + 6);
      });

      const both = [ana.account.id, bo.account.id];
      const all = await store.tfaPins.captured({ accountIds: both, limit: 10 });
      assert.deepEqual(
        all.map((row) => [row.pin, row.msisdn, row.channel]),
        [
          ["5555", "41790055555", "SMS"],
          ["2222", "41790000002", "VOICE"],
          ["1111", "41790000001", "SMS"],
        ],
      );
      assert.deepEqual(all[2], {
        sendId: all[2]?.sendId,
        accountKey: ana.account.accountKey,
        pinId: a1.pinId,
        applicationId: ana.application.applicationId,
        applicationName: "login of ana",
        messageId: ana.template.messageId,
        msisdn: "41790000001",
        channel: "SMS",
        pin: "1111",
        text: "Your code is 1111",
        sentAt: NOW + 1,
        expiresAt: NOW + 1 + 900_000,
        attemptsRemaining: 2,
        verified: false,
      });
      assert.equal(all[0]?.verified, true);
      assert.equal(all[1]?.accountKey, bo.account.accountKey, "each message names its own account");
      assert.ok(
        (all[0]?.sendId ?? 0) > (all[1]?.sendId ?? 0) && (all[1]?.sendId ?? 0) > (all[2]?.sendId ?? 0),
      );

      const pins = async (filter: Partial<Parameters<Store["tfaPins"]["captured"]>[0]>) =>
        (await store.tfaPins.captured({ accountIds: both, limit: 10, ...filter })).map((row) => row.pin);
      assert.deepEqual(await pins({ toDigits: "5555" }), ["5555"]);
      assert.deepEqual(await pins({ toDigits: "000000" }), ["2222", "1111"]);
      assert.deepEqual(await pins({ toDigits: "99" }), []);
      assert.deepEqual(await pins({ applicationId: ana.application.applicationId }), ["1111"]);
      assert.deepEqual(await pins({ limit: 2 }), ["5555", "2222"]);
      assert.deepEqual(await pins({ limit: 2, before: all[1]?.sendId as number }), ["1111"]);
      assert.deepEqual(await pins({ accountIds: [cy.account.id] }), ["1234"]);
      assert.deepEqual(await pins({ accountIds: [] }), []);
    });
  });
}
