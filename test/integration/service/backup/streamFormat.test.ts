import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import { backupDataDir, restoreDataDir } from "../../../../electron/service/backup/backupDataDir.ts";
import {
  CHUNK_BYTES,
  chunkLayout,
  deriveBackupKey,
  newHeader,
  PayloadOpener,
  PayloadSealer,
  parseHead,
  SEALED_CHUNK_BYTES,
} from "../../../../electron/service/backup/backupFormat.ts";
import { createdDuring, entriesOf, makeDataDir } from "../../../harness/backupDataDirs.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";
import { flipAt } from "../../../harness/oldBackupFormat.ts";
import {
  CHEAP_KDF,
  chunkStart,
  chunksOf,
  craftStreamBackup,
  firstChunkPlaintext,
  payloadOf,
  TAG_FINAL,
  TAG_MESSAGE,
} from "../../../harness/streamBackupFormat.ts";

/**
 * Format 3, the one Keydesk writes: libsodium's secretstream in chunks of 64 KiB, each
 * authenticated before a byte of it is used, the clear head authenticated with the first, the
 * last marked final. A wrong passphrase is refused at the first chunk; a changed, moved, missing
 * or added chunk, or a manifest or header Keydesk would not write, is refused in one line, and
 * nothing is left behind.
 */

const PASSPHRASE = "twelve chars or more";
const WRONG_OR_DAMAGED = "the passphrase is wrong, or the file is damaged; nothing was written";
const CUT_SHORT = "the file is damaged (it is cut short); nothing was written";
const damaged = (what: string) => `the file is damaged (${what}); nothing was written`;
const KDF_REFUSED =
  "the file is damaged, or was written by a newer Keydesk (its key derivation is not one this Keydesk accepts); nothing was written";

let root: string;
/** A real backup of a data directory of about 4 MiB (some 65 chunks). */
let backup: Buffer;
let headLength: number;
let cases = 0;

before(async () => {
  root = await makeTempDir("keydesk-backup-stream-");
  const dataDir = await makeDataDir(join(root, "source"), { fillBytes: 4 * 1024 * 1024 });
  const out = join(root, "big.kdbackup");
  await backupDataDir({ dataDir, out, passphrase: PASSPHRASE });
  backup = readFileSync(out);
  headLength = parseHead(backup.subarray(0, 5000), backup.length).head.length;
});
after(() => removeDir(root));

function caseWith(bytes: Buffer): { dir: string; input: string; target: string } {
  const dir = join(root, `case-${++cases}`);
  mkdirSync(dir);
  const input = join(dir, "input.kdbackup");
  writeFileSync(input, bytes);
  return { dir, input, target: join(dir, "restored") };
}

/**
 * Restoring `bytes` is refused with `message`, leaving nothing; unless `unpacked` (the refusal
 * comes after authenticated chunks were unpacked), nothing was even created beside the target.
 * Answers the progress reported.
 */
async function refused(
  bytes: Buffer,
  message: string,
  options: { passphrase?: string; unpacked?: boolean } = {},
): Promise<number[]> {
  const { dir, input, target } = caseWith(bytes);
  const read: number[] = [];
  const created = await createdDuring(dir, () =>
    assert.rejects(
      restoreDataDir({
        input,
        dataDir: target,
        passphrase: options.passphrase ?? PASSPHRASE,
        onProgress: (done) => read.push(done),
      }),
      (error: Error) => {
        assert.equal(error.message, message);
        return true;
      },
    ),
  );
  if (options.unpacked)
    assert.ok(
      created.some((name) => name.startsWith(".restored.restoring-")),
      "its staging directory was made, then removed",
    );
  else assert.deepEqual(created, [], "nothing created beside the target, not even for a moment");
  assert.deepEqual(entriesOf(dir), ["input.kdbackup"], "no target, no staging directory");
  return read;
}

/** The file with its chunks rearranged: `order` lists chunk indexes. */
function withChunks(order: number[]): Buffer {
  const chunk = (index: number) =>
    backup.subarray(chunkStart(headLength, index), chunkStart(headLength, index + 1));
  return Buffer.concat([backup.subarray(0, headLength), ...order.map(chunk)]);
}

const chunkCount = () => Math.ceil((backup.length - headLength) / SEALED_CHUNK_BYTES);

describe("what is written", () => {
  test("format 3: a clear head (format, scrypt 2^17, the cipher, 64 KiB chunks), then sealed chunks", () => {
    const header = JSON.parse(backup.subarray(12, 12 + backup.readUInt32BE(8)).toString("utf8"));
    assert.deepEqual(Object.keys(header), ["format", "kdf", "cipher", "chunkBytes", "createdAt"]);
    assert.equal(header.format, 3);
    assert.deepEqual(
      { ...header.kdf, salt: undefined },
      { name: "scrypt", N: 2 ** 17, r: 8, p: 1, salt: undefined },
    );
    assert.equal(header.cipher, "xchacha20poly1305-secretstream");
    assert.equal(header.chunkBytes, CHUNK_BYTES);
    assert.equal(headLength, 12 + backup.readUInt32BE(8) + 24, "the secretstream header follows the JSON");
    assert.ok(chunkCount() > 60);
    const last = backup.length - chunkStart(headLength, chunkCount() - 1);
    assert.ok(last > 17 && last <= SEALED_CHUNK_BYTES);
  });
});

describe("the chunks", () => {
  test("a payload of any size, given in any pieces, is cut in full chunks and a last one (full or not)", async () => {
    const written = newHeader(new Date());
    const header = { ...written, kdf: { ...written.kdf, ...CHEAP_KDF } };
    const key = await deriveBackupKey(PASSPHRASE, header.kdf);
    // 4 bytes at least: a payload begins with its manifest's length.
    for (const size of [
      4,
      CHUNK_BYTES - 1,
      CHUNK_BYTES,
      CHUNK_BYTES + 1,
      2 * CHUNK_BYTES,
      3 * CHUNK_BYTES + 5,
    ]) {
      const payload = randomBytes(size);
      const sealer = new PayloadSealer(key, header);
      const parts = [sealer.head];
      for (let at = 0, piece = 1; at < size; at += piece, piece = piece * 7 + 3)
        parts.push(sealer.update(payload.subarray(at, at + piece)));
      parts.push(sealer.final());
      const file = Buffer.concat(parts);
      const parsed = parseHead(file.subarray(0, 5000), file.length);
      const { chunks, payloadBytes } = chunkLayout(parsed.head.length, file.length);
      assert.equal(chunks, Math.ceil(size / CHUNK_BYTES), `${size} bytes`);
      assert.equal(payloadBytes, size);
      const opener = new PayloadOpener(key, parsed);
      const opened: Buffer[] = [];
      for (let index = 0; index < chunks; index++) {
        const start = chunkStart(parsed.head.length, index);
        const sealed = file.subarray(start, Math.min(start + SEALED_CHUNK_BYTES, file.length));
        opened.push(Buffer.from(opener.open(sealed, index === chunks - 1, Buffer.alloc(CHUNK_BYTES))));
      }
      assert.ok(Buffer.concat(opened).equals(payload), `${size} bytes`);
    }
  });
});

describe("a wrong passphrase", () => {
  test("on a multi-MB file, is refused having read the first chunk only", async () => {
    const read = await refused(backup, WRONG_OR_DAMAGED, { passphrase: "not the passphrase at all" });
    assert.deepEqual(read, [headLength + SEALED_CHUNK_BYTES]);
    assert.ok(backup.length > 60 * SEALED_CHUNK_BYTES);
  });
});

describe("changed without the passphrase", () => {
  test('a manifest flipped ("bytes":N into "bytes":-5) is refused at the first chunk; nothing written', async () => {
    const { plain } = await firstChunkPlaintext(backup, PASSPHRASE);
    const manifest = plain.subarray(4, 4 + plain.readUInt32BE(0)).toString("utf8");
    const from = /"bytes":\d+\}/.exec(manifest)?.[0] as string;
    const to = `"bytes":-5}`.padEnd(from.length, " ");
    // A chunk's ciphertext: its tag byte, then the message's bytes, then the MAC.
    const at = headLength + 1 + 4 + manifest.indexOf(from);
    const read = await refused(flipAt(backup, at, from, to), WRONG_OR_DAMAGED);
    assert.deepEqual(read, [headLength + SEALED_CHUNK_BYTES], "nothing read past the first chunk");
  });

  test("a byte of the clear head changed (its creation time)", async () => {
    const at = backup.indexOf(Buffer.from('"createdAt":"')) + 13;
    await refused(flipAt(backup, at, "2", "1"), WRONG_OR_DAMAGED);
  });

  test("a byte of a later chunk changed: refused there, the files begun removed", async () => {
    const at = chunkStart(headLength, 30) + 100;
    const changed = Buffer.from(backup);
    changed[at] = (changed[at] as number) ^ 1;
    await refused(changed, damaged("a part of it was changed, moved or cut"), { unpacked: true });
  });
});

describe("chunks missing, added or moved", () => {
  // The payload's size follows from the file's: a file cut or made longer no longer matches the
  // manifest, authenticated in the first chunk, and is refused there, having read nothing more.
  const SIZE_MISMATCH = damaged("its list of contents does not match its size");

  test("cut at a chunk's end (the final chunk missing)", async () => {
    const read = await refused(withChunks([...Array(chunkCount() - 1).keys()]), SIZE_MISMATCH);
    assert.deepEqual(read, [headLength + SEALED_CHUNK_BYTES]);
  });

  test("cut inside a chunk", async () => {
    await refused(backup.subarray(0, chunkStart(headLength, 20) + 5000), SIZE_MISMATCH);
  });

  test("bytes after the final chunk", async () => {
    await refused(Buffer.concat([backup, Buffer.from("more")]), SIZE_MISMATCH);
  });

  test("a chunk repeated", async () => {
    const order = [...Array(chunkCount()).keys()];
    order.splice(5, 0, 5);
    await refused(withChunks(order), SIZE_MISMATCH);
  });

  test("a chunk marked final before the last", async () => {
    const crafted = await craftStreamBackup({
      passphrase: PASSPHRASE,
      chunks: [
        { plain: randomBytes(CHUNK_BYTES), tag: TAG_FINAL },
        { plain: randomBytes(100), tag: TAG_FINAL },
      ],
    });
    await refused(crafted.bytes, damaged("it goes on after its end"));
  });

  test("two chunks swapped", async () => {
    const order = [...Array(chunkCount()).keys()];
    [order[10], order[11]] = [order[11] as number, order[10] as number];
    await refused(withChunks(order), damaged("a part of it was changed, moved or cut"), { unpacked: true });
  });

  test("no chunk marked final", async () => {
    const chunks = chunksOf(payloadOf([{ name: "keydesk.db", body: randomBytes(100) }])).map((chunk) => ({
      ...chunk,
      tag: TAG_MESSAGE,
    }));
    await refused((await craftStreamBackup({ passphrase: PASSPHRASE, chunks })).bytes, CUT_SHORT);
  });
});

describe("sealed with the passphrase, but not as Keydesk writes", () => {
  const files = [
    { name: "keydesk.db", body: Buffer.alloc(100) },
    { name: "data.key", body: Buffer.alloc(44) },
  ];
  const sealedWith = async (manifestJson: string) =>
    (
      await craftStreamBackup({
        passphrase: PASSPHRASE,
        chunks: chunksOf(payloadOf(files, { manifestJson })),
      })
    ).bytes;

  test("a negative size", async () => {
    await refused(
      await sealedWith(
        '{"schemaVersion":1,"files":[{"name":"keydesk.db","bytes":-5},{"name":"data.key","bytes":149}]}',
      ),
      damaged("its list of contents is not valid"),
    );
  });

  test("files that are not a list", async () => {
    await refused(
      await sealedWith(
        '{"schemaVersion":1,"files":{"0":{"name":"keydesk.db","bytes":100},"1":{"name":"data.key","bytes":44}}}',
      ),
      damaged("its list of contents is not valid"),
    );
  });

  test("a manifest that is no JSON", async () => {
    await refused(
      await sealedWith('{"schemaVersion":1,"files":[{"name":'),
      damaged("its list of contents cannot be read"),
    );
  });

  test("sizes that do not add up to the payload", async () => {
    await refused(
      await sealedWith(
        '{"schemaVersion":1,"files":[{"name":"keydesk.db","bytes":99},{"name":"data.key","bytes":44}]}',
      ),
      damaged("its list of contents does not match its size"),
    );
  });

  test("a manifest length of 4 GiB", async () => {
    const payload = payloadOf(files);
    payload.writeUInt32BE(0xffffffff, 0);
    const bytes = (await craftStreamBackup({ passphrase: PASSPHRASE, chunks: chunksOf(payload) })).bytes;
    await refused(bytes, damaged("its list of contents is not valid"));
  });

  test("a database whose schema version is not the manifest's", async () => {
    const dataDir = await makeDataDir(join(root, "version-0"));
    const db = new Database(join(dataDir, "keydesk.db"));
    db.pragma("user_version = 0");
    db.close();
    const real = [
      { name: "keydesk.db", body: readFileSync(join(dataDir, "keydesk.db")) },
      { name: "data.key", body: readFileSync(join(dataDir, "data.key")) },
    ];
    const bytes = (
      await craftStreamBackup({
        passphrase: PASSPHRASE,
        chunks: chunksOf(payloadOf(real, { schemaVersion: 1 })),
      })
    ).bytes;
    await refused(bytes, damaged("the database in it has schema version 0"), { unpacked: true });
  });

  test("a database that is no SQLite database", async () => {
    const bytes = (
      await craftStreamBackup({
        passphrase: PASSPHRASE,
        chunks: chunksOf(
          payloadOf([
            { name: "keydesk.db", body: Buffer.from("not a database, but some text long enough") },
            { name: "data.key", body: Buffer.from(randomBytes(32).toString("base64")) },
          ]),
        ),
      })
    ).bytes;
    await refused(bytes, damaged("its database or its data key cannot be read"), { unpacked: true });
  });
});

describe("the header is checked before any key is derived", () => {
  const headWith = async (header: Record<string, unknown>) =>
    (
      await craftStreamBackup({
        passphrase: PASSPHRASE,
        chunks: chunksOf(payloadOf([{ name: "keydesk.db", body: Buffer.alloc(10) }])),
        header,
      })
    ).bytes;
  const salt = Buffer.alloc(16, 7).toString("base64");
  const parse = (bytes: Buffer) => parseHead(bytes.subarray(0, 5000), bytes.length);

  test("scrypt N from 2^14 to 2^18 with r = 8, p = 1 is accepted", async () => {
    for (let logN = 14; logN <= 18; logN++)
      assert.equal(
        parse(await headWith({ kdf: { ...CHEAP_KDF, name: "scrypt", N: 2 ** logN, salt } })).header.kdf.N,
        2 ** logN,
      );
  });

  test("any other scrypt parameters are refused by the head alone (no key derived)", async () => {
    for (const kdf of [
      { N: 2 ** 20, r: 32, p: 16 },
      { N: 2 ** 13, r: 8, p: 1 },
      { N: 2 ** 19, r: 8, p: 1 },
      { N: 3 * 2 ** 14, r: 8, p: 1 },
      { N: 2 ** 17, r: 16, p: 1 },
      { N: 2 ** 17, r: 8, p: 2 },
    ]) {
      const bytes = await headWith({ kdf: { name: "scrypt", ...kdf, salt } });
      assert.throws(() => parse(bytes), { message: KDF_REFUSED }, JSON.stringify(kdf));
    }
  });

  test("a restore with them is refused in the same line", async () => {
    await refused(await headWith({ kdf: { name: "scrypt", N: 2 ** 20, r: 32, p: 16, salt } }), KDF_REFUSED);
  });

  test("another chunk size, cipher, or a field Keydesk does not write", async () => {
    for (const change of [
      { chunkBytes: 1 },
      { cipher: "aes-256-gcm" },
      { extra: true },
      { createdAt: "yesterday" },
    ])
      await refused(await headWith(change), damaged("its header is not valid"));
  });

  test("a newer format: written by a newer Keydesk", async () => {
    await refused(
      await headWith({ format: 4 }),
      "it was written by a newer Keydesk (backup format 4; this one reads formats 1, 2, 3); use a newer Keydesk; nothing was written",
    );
  });
});
