import type { SecretBox } from "../crypto/secretBox.ts";
import { KEY_CHECK } from "../dataDir.ts";
import type { Db } from "../store/database.ts";

/**
 * Re-seals every secret of a database under another data key (a restore onto a machine that sets
 * KEY_SERVICE_DATA_KEY): each sealed value is opened with the old key and sealed again, with the
 * same context, under the new one; keyed digests are computed again. Idempotent creates' records
 * are dropped: their request digests cannot be computed again without the requests (a retry of
 * a create answered before the backup then creates another key).
 */

/** Every sealed or keyed-digest column, by table: what resealDatabase handles (a test checks the schema). */
export const RESEALED_COLUMNS: Record<string, string[]> = {
  api_keys: ["public_api_key_sealed", "public_api_key_digest"],
  tfa_pins: ["pin_sealed"],
  tfa_sends: ["text_sealed"],
  sync_links: ["remote_password_sealed"],
  idempotent_requests: ["response_sealed", "request_digest"],
};

export function resealDatabase(db: Db, from: SecretBox, to: SecretBox): void {
  // The old ciphertexts are zeroed where they were, not left in freed space.
  db.pragma("secure_delete = ON");
  db.transaction(() => {
    const keys = db.prepare("SELECT id, key, public_api_key_sealed AS sealed FROM api_keys").all() as {
      id: number;
      key: string;
      sealed: Buffer;
    }[];
    const updateKey = db.prepare(
      "UPDATE api_keys SET public_api_key_sealed = ?, public_api_key_digest = ? WHERE id = ?",
    );
    for (const row of keys) {
      const publicApiKey = from.decrypt(row.sealed, row.key);
      updateKey.run(to.encrypt(publicApiKey, row.key), to.digest(publicApiKey), row.id);
    }
    const pins = db.prepare("SELECT id, pin_id, pin_sealed AS sealed FROM tfa_pins").all() as {
      id: number;
      pin_id: string;
      sealed: Buffer;
    }[];
    const updatePin = db.prepare("UPDATE tfa_pins SET pin_sealed = ? WHERE id = ?");
    for (const row of pins)
      updatePin.run(to.encrypt(from.decrypt(row.sealed, row.pin_id), row.pin_id), row.id);
    const sends = db
      .prepare(
        "SELECT s.id, p.pin_id, s.text_sealed AS sealed FROM tfa_sends s JOIN tfa_pins p ON p.id = s.pin_ref WHERE s.text_sealed IS NOT NULL",
      )
      .all() as { id: number; pin_id: string; sealed: Buffer }[];
    const updateSend = db.prepare("UPDATE tfa_sends SET text_sealed = ? WHERE id = ?");
    for (const row of sends)
      updateSend.run(to.encrypt(from.decrypt(row.sealed, row.pin_id), row.pin_id), row.id);
    const links = db
      .prepare("SELECT id, account_id, remote_password_sealed AS sealed FROM sync_links")
      .all() as {
      id: number;
      account_id: number;
      sealed: Buffer;
    }[];
    const updateLink = db.prepare("UPDATE sync_links SET remote_password_sealed = ? WHERE id = ?");
    for (const row of links) {
      const context = `sync-link-password:${row.account_id}`;
      updateLink.run(to.encrypt(from.decrypt(row.sealed, context), context), row.id);
    }
    db.prepare("DELETE FROM idempotent_requests").run();
    db.prepare("UPDATE meta SET value = ? WHERE name = ?").run(to.checkValue, KEY_CHECK);
  })();
}
