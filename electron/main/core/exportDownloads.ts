import { randomBytes } from "node:crypto";
import type { ExportDownload } from "../corePorts.ts";

/**
 * Exports waiting for their one download (the browser host): each under a random id (128 bits),
 * answered once, gone after DOWNLOAD_TTL_MS or when a newer export pushes it past MAX_KEPT.
 * @internal Exported for tests.
 */
export const DOWNLOAD_TTL_MS = 60_000;
const MAX_KEPT = 4;

export class ExportDownloads {
  readonly #kept = new Map<string, { file: ExportDownload; expiresAt: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Keeps the file and answers its id. */
  add(file: ExportDownload): string {
    const id = randomBytes(16).toString("hex");
    this.#kept.set(id, { file, expiresAt: this.#now() + DOWNLOAD_TTL_MS });
    for (const old of this.#kept.keys()) {
      if (this.#kept.size <= MAX_KEPT) break;
      this.#kept.delete(old);
    }
    return id;
  }

  /** The file, once; undefined when unknown, taken already or expired. */
  take(id: string): ExportDownload | undefined {
    const entry = this.#kept.get(id);
    this.#kept.delete(id);
    return entry && entry.expiresAt > this.#now() ? entry.file : undefined;
  }

  clear(): void {
    this.#kept.clear();
  }
}

/** The browser host's path of a download (the host serves it, with the session token). */
export const DOWNLOAD_PATH_PREFIX = "/download/";
