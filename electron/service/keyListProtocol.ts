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
  /** Keys as one piece of a list's UTF-8 text (separated by commas; led by one when `comma`). */
  | (ScanRequest & { kind: "chunk"; comma: boolean })
  /** Keys one by one with their row ids, for a page and its cursor. */
  | (ScanRequest & { kind: "page" })
  /** How many of the next `rows` rows match. */
  | { id: number; kind: "count"; accountId: number; filter: ApiKeyFilter; after: number; rows: number };

export type KeyListAnswer =
  /** `bytes` is transferred, not copied: the service's thread writes it to the socket as it is. */
  | { id: number; kind: "chunk"; bytes: Uint8Array; count: number; next: number | null }
  | { id: number; kind: "page"; texts: string[]; ids: number[]; next: number | null }
  | { id: number; kind: "count"; count: number; next: number | null }
  | { id: number; kind: "error"; message: string };
