import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IbssoAuthenticator } from "../../../../electron/service/auth/ibssoAuthenticator.ts";
import { MAX_LIVE_SESSIONS, SESSION_LIFETIME_MS } from "../../../../electron/service/auth/ibssoSessions.ts";
import type { Account } from "../../../../electron/service/domain/accounts.ts";
import { newAccountKey } from "../../../../electron/service/domain/identifiers.ts";
import { ApiError } from "../../../../electron/service/errors.ts";
import type { Store } from "../../../../electron/service/store/store.ts";
import { openStore, STORE_KINDS, storedRows } from "./storeSubjects.ts";

/**
 * IBSSO sessions in the store (through IbssoAuthenticator, on its clock), asserted identically on
 * SQLite and on PostgreSQL: a row holds the token's keyed digest, never the token; a session is
 * accepted for 60 minutes, then refused and deleted; an account's 11th session ends its oldest;
 * expired sessions of any account go at the next create.
 */

const NOW = 1_750_000_000_000;

const insertAccount = (store: Store, username: string) =>
  store.write((tx) =>
    tx.accounts.insert({
      accountKey: newAccountKey(),
      username,
      passwordHash: "unused",
      parentId: null,
      createdAt: NOW,
    }),
  );

const refused = (error: unknown) => error instanceof ApiError && error.status === 401;

for (const kind of STORE_KINDS) {
  describe(`the ${kind} store's IBSSO sessions`, () => {
    test("a token acts for its account until its 60th minute, then is refused and its row deleted; no row holds it", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      let clock = NOW;
      const sessions = new IbssoAuthenticator(subject.store, subject.store.accounts, () => clock);
      const ana: Account = await insertAccount(subject.store, "ana");
      const token = await sessions.create(ana);
      assert.deepEqual(await sessions.authenticate(token), ana);
      const [row] = await storedRows(subject, "ibsso_sessions");
      assert.ok(row);
      assert.ok(
        !Object.values(row).some((value) => String(value).includes(token)),
        "the token is not stored",
      );
      clock = NOW + SESSION_LIFETIME_MS - 1;
      assert.deepEqual(await sessions.authenticate(token), ana);
      clock = NOW + SESSION_LIFETIME_MS;
      await assert.rejects(sessions.authenticate(token), refused);
      assert.deepEqual(await storedRows(subject, "ibsso_sessions"), [], "expired: deleted when it was named");
    });

    test("an account's 11th session ends its oldest; a create purges expired sessions of any account", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      let clock = NOW;
      const sessions = new IbssoAuthenticator(subject.store, subject.store.accounts, () => clock);
      const [ana, bob] = [
        await insertAccount(subject.store, "ana"),
        await insertAccount(subject.store, "bob"),
      ];
      await sessions.create(bob);
      const tokens: string[] = [];
      for (let i = 0; i <= MAX_LIVE_SESSIONS; i++) {
        clock = NOW + i;
        tokens.push(await sessions.create(ana));
      }
      await assert.rejects(sessions.authenticate(tokens[0] as string), refused);
      for (const token of tokens.slice(1)) assert.deepEqual(await sessions.authenticate(token), ana);
      clock = NOW + SESSION_LIFETIME_MS + MAX_LIVE_SESSIONS;
      await sessions.create(ana);
      assert.equal(
        (await storedRows(subject, "ibsso_sessions")).length,
        1,
        "bob's and ana's expired ones went",
      );
    });
  });
}
