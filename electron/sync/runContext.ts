import type { SyncedField, SyncProgressDto } from "../../shared/sync.ts";
import type { KeyServiceClient } from "../client/keyServiceClient.ts";
import type { Account } from "../service/domain/accounts.ts";
import type { SyncLink } from "../service/domain/syncRecords.ts";
import type { Store } from "../service/store/store.ts";

/** What one run of one link works with. */
export interface RunContext {
  /** Reads outside a write; every write goes through `store.write`. */
  readonly store: Store;
  readonly link: SyncLink;
  /** The link's local account, read when the run started. */
  readonly account: Account;
  readonly client: KeyServiceClient;
  now(): number;
  progress(progress: SyncProgressDto): void;
  /** Something about one key that the user should know; the run goes on. */
  problem(text: string): void;
  /** The engine is closing: stop between operations. */
  stopped(): boolean;
  /** The keys this run changed here (pulled) and on the remote (pushed), for the link's run log. */
  readonly tally: { readonly pulled: Set<string>; readonly pushed: Set<string> };
  /** Conflicting remote values the pull saw first: the remote's history is asked who set them. */
  readonly freshConflicts: { apiKeyId: number; remoteKey: string; fields: SyncedField[] }[];
}
