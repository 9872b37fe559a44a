import type { ApiKeyFilter } from "./store/apiKeyStore.ts";

/** What the service and its key list worker (keyListWorker.ts) tell each other. */

export interface KeyListWorkerInit {
  databaseFile: string;
  dataKey: Uint8Array;
}

interface ScanRequest {
  id: number;
  accountId: number;
  accountKey: string;
  filter: ApiKeyFilter;
  /** The scan position to go on from: 0, or a `next` of an earlier answer. */
  after: number;
  maxKeys: number;
  /** The answer stops after the step that passes this many characters of text. */
  maxBytes: number;
}

export type KeyListRequest =
  /** Keys as one piece of a list's text (keys separated by commas). */
  | (ScanRequest & { kind: "chunk" })
  /** Keys one by one with their row ids, for a page and its cursor. */
  | (ScanRequest & { kind: "page" })
  /** How many of the next `rows` rows match. */
  | { id: number; kind: "count"; accountId: number; filter: ApiKeyFilter; after: number; rows: number };

export type KeyListAnswer =
  | { id: number; kind: "chunk"; text: string; count: number; next: number | null }
  | { id: number; kind: "page"; texts: string[]; ids: number[]; next: number | null }
  | { id: number; kind: "count"; count: number; next: number | null }
  | { id: number; kind: "error"; message: string };
