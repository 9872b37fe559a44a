import type { SyncProgressDto } from "../../shared/sync.ts";
import type { KeyServiceClient } from "../client/keyServiceClient.ts";
import type { DataDir } from "../service/dataDir.ts";
import type { SyncLink, SyncStore } from "./syncStore.ts";

/** What one run of one link works with. */
export interface RunContext {
  readonly data: DataDir;
  readonly store: SyncStore;
  readonly link: SyncLink;
  readonly client: KeyServiceClient;
  now(): number;
  progress(progress: SyncProgressDto): void;
  /** Something about one key that the user should know; the run goes on. */
  problem(text: string): void;
  /** The engine is closing: stop between operations. */
  stopped(): boolean;
}
