import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createWriteStream, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * Backups chosen for a restore, each under a random id (128 bits) main hands the renderer instead
 * of a path: a file from the desktop's open dialog, an automatic backup, or a file uploaded to the
 * browser host (kept in `<appDataDir>/.uploads`, mode 0600, removed once restored, replaced or
 * when the app stops). The renderer can only name what main chose or received.
 */

/** The largest upload the browser host takes for a restore. */
export const MAX_UPLOAD_BYTES = 1024 ** 3;
/** Sources kept at once (older ones are forgotten, and their uploads removed). */
const MAX_KEPT = 4;

export interface RestoreSource {
  path: string;
  fileName: string;
  automatic: boolean;
  /** An upload: its file is ours to remove. */
  temporary: boolean;
}

export class UploadTooLarge extends Error {}

export class RestoreSources {
  readonly #kept = new Map<string, RestoreSource>();
  readonly #uploads: string;

  constructor(appDataDir: string) {
    this.#uploads = join(appDataDir, ".uploads");
  }

  add(source: RestoreSource): string {
    const id = randomBytes(16).toString("hex");
    this.#kept.set(id, source);
    for (const old of this.#kept.keys()) {
      if (this.#kept.size <= MAX_KEPT) break;
      this.discard(old);
    }
    return id;
  }

  get(id: string): RestoreSource | undefined {
    return this.#kept.get(id);
  }

  discard(id: string): void {
    const source = this.#kept.get(id);
    this.#kept.delete(id);
    if (source?.temporary) rmSync(source.path, { force: true });
  }

  /** Writes an upload to a private file, at most MAX_UPLOAD_BYTES (else nothing is kept). */
  async receive(fileName: string, body: AsyncIterable<Uint8Array>, maxBytes = MAX_UPLOAD_BYTES) {
    mkdirSync(this.#uploads, { recursive: true, mode: 0o700 });
    const path = join(this.#uploads, randomBytes(16).toString("hex"));
    const out = createWriteStream(path, { mode: 0o600 });
    let size = 0;
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > maxBytes) throw new UploadTooLarge(`the file is larger than ${maxBytes} bytes`);
        if (!out.write(chunk)) await once(out, "drain");
      }
      out.end();
      await once(out, "close");
    } catch (error) {
      out.destroy();
      rmSync(path, { force: true });
      throw error;
    }
    return this.add({ path, fileName, automatic: false, temporary: true });
  }

  clear(): void {
    for (const id of [...this.#kept.keys()]) this.discard(id);
    rmSync(this.#uploads, { recursive: true, force: true });
  }
}
