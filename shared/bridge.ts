import { z } from "zod";
import type { KeyUsageSeriesAnswer } from "./apiKeys.ts";
import { createApiKeyRequestSchema, NAME_MAX_LENGTH, updateApiKeyRequestSchema } from "./apiKeys.ts";
import type { KeyHistoryDto } from "./audit.ts";
import {
  type BackupBridgeResults,
  type BackupProgressEvent,
  backupBridgeArgumentSchemas,
  type DataRestoredEvent,
} from "./backupBridge.ts";
import type { AccountDto, ApiKeyView, BridgeResult, RevealedApiKey } from "./bridgeTypes.ts";
import {
  CONSOLE_PASSWORD_RULE,
  MIN_CONSOLE_PASSWORD_LENGTH,
  USERNAME_PATTERN,
  USERNAME_RULE,
} from "./credentialRules.ts";
import {
  accountKeySchema,
  callProfileSchema,
  keyIdSchema,
  keyQuerySchema,
  keySortSchema,
  profileIdSchema,
} from "./keyArgumentSchemas.ts";
import {
  type KeyLifecycleEvent,
  type KeyLifecycleResults,
  keyLifecycleArgumentSchemas,
} from "./keyLifecycleBridge.ts";
import { type SyncBridgeResults, type SyncChangedEvent, syncBridgeArgumentSchemas } from "./syncBridge.ts";
import type { CapturedPinDto, PinStateDto } from "./tfa.ts";
import { type TfaBridgeResults, tfaBridgeArgumentSchemas } from "./tfaBridge.ts";

/**
 * The typed bridge between the renderer and the main process. The preload (Electron) and the
 * browser host (`npm run web`) expose exactly these methods; main validates every argument with
 * the schema below before a handler sees it. Results cross as a result union so that an error
 * keeps its messageId, text and per-field validationErrors.
 */

export type {
  AccountDto,
  ApiKeyView,
  BridgeError,
  BridgeMessageId,
  BridgeResult,
  RevealedApiKey,
} from "./bridgeTypes.ts";

// ---- DTOs of the desktop side -------------------------------------------------------------

export interface ProfileDto {
  id: string;
  name: string;
  kind: "local" | "remote";
  baseUrl: string;
  username: string;
  active: boolean;
}

export interface ConnectionVerdict {
  reachable: boolean;
  credentialsAccepted: boolean;
  /** The accountKey the credentials belong to, when accepted. */
  accountKey?: string;
  /** One sentence a person can act on. */
  text: string;
}

/**
 * The embedded key service (the Local profile's) and the credential store, whichever profile is
 * active; `profiles.checkActive` tells about the active profile's service.
 */
export interface ServiceStatusDto {
  running: boolean;
  baseUrl: string | null;
  port: number | null;
  /** The port tried first was taken, so the service listens on another one. */
  portChanged: boolean;
  /**
   * The port tried first when it was taken (null otherwise), and whether it was the remembered
   * one (a later start) or the default (a first start, nothing remembered yet).
   */
  takenPort: { port: number; remembered: boolean } | null;
  /** Where credentials live: the OS keychain, or memory for this session only. */
  keychain: "os" | "session-only";
  /** Why the OS keychain is not used, in words a person can act on (session-only only). */
  keychainUnavailableReason?: string;
  /**
   * Session-only only: the folder where the Local service's data key (`data.key`) and its owner's
   * password (`owner.password`) are kept instead, in files only the user can read (mode 0600), so
   * they stay the same across restarts.
   */
  localSecretsDir?: string;
  activeProfileId: string | null;
}

interface LocalCredentialsDto {
  baseUrl: string;
  username: string;
  password: string;
}

/**
 * What a copy of a publicApiKey answers. The clipboard is cleared after `clearsAfterMs` if it
 * still holds the copied value.
 * - `main`: the desktop app. Main wrote the OS clipboard and clears it; the value never reaches
 *   the renderer.
 * - `page`: the browser host, whose process has no clipboard of the user's: the value comes back
 *   to the page, which writes it with the Clipboard API and clears it itself. Only a core started
 *   with the page clipboard (the browser host's) answers this, and only to an explicit copy.
 */
export type CopyResultDto =
  | { writtenBy: "main"; clearsAfterMs: number }
  | { writtenBy: "page"; clearsAfterMs: number; publicApiKey: string };

/** The active profile's service as last checked (the header shows it). */
export interface ActiveProfileStatusDto {
  profile: ProfileDto;
  /** Reachable? Credentials accepted? In words a person can act on. */
  verdict: ConnectionVerdict;
  /** When the check ran, in the API's datetime format. */
  checkedAt: string;
}

/** What keys.page and keys.count are narrowed by. */
export type KeyQueryDto = z.infer<typeof keyQuery>;

/** The fewest characters a part of a key id or publicApiKey is searched by (a hint shows six). */
export const KEY_FRAGMENT_MIN = 6;

/**
 * The keys whose key id or publicApiKey holds a piece of text (a key id or publicApiKey cut short
 * in a log): at most a few, from the first keys of the account up to a bound; `complete` when the
 * whole account was searched.
 */
export interface KeyFragmentMatchesDto {
  matches: { key: ApiKeyView; foundBy: "keyId" | "publicApiKey" }[];
  searched: number;
  complete: boolean;
}

/**
 * One page of an account's keys in creation order, never more than the limit asked for. Pass
 * nextCursor back (same account and query) for the next page; null on the last one.
 */
export interface KeyPageDto {
  keys: ApiKeyView[];
  nextCursor: string | null;
}

/** The colour scheme: always light, always dark, or the system's ("auto"). */
export const THEMES = ["light", "dark", "auto"] as const;
export type Theme = (typeof THEMES)[number];

export interface SettingsDto {
  clipboardClearSeconds: number;
  theme: Theme;
  /** Whether keys expiring within EXPIRING_SOON_DAYS are announced (once per key per day); on by default. */
  expiryNotifications: boolean;
}

/** One notification: a key's name, account and end; never a publicApiKey. */
export interface NotificationItemDto {
  title: string;
  body: string;
}

/**
 * Who showed the notifications: main (the desktop's system notifications); the page (the browser
 * host: main has no screen of the user's, so the page shows them with the Notification API); none
 * because the setting is off, or because the system has no notifications.
 */
export type NotificationsShownDto = { shownBy: "main" | "page" | "off" | "unsupported" };

// ---- Argument schemas ---------------------------------------------------------------------

const accountKey = accountKeySchema;
const keyId = keyIdSchema;
const profileId = profileIdSchema;
/** The profile a call acts on (see profileIdSchema). */
const profile = callProfileSchema;
const baseUrl = z
  .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
  .max(2000, "must be at most 2000 characters");
const username = z.string().min(1, "must not be empty").max(200);
const password = z.string().min(1, "must not be empty").max(1024);
const none = z.strictObject({}).optional();
const keyQuery = keyQuerySchema;

/**
 * Notifications per notifications.show call: a day's expiring keys are announced one by one up to this.
 * @internal Exported for tests.
 */
export const MAX_NOTIFICATIONS_PER_CALL = 20;

/** Rows of keys.page per call: at most this many, DEFAULT_KEY_PAGE_LIMIT when not asked. */
export const MAX_KEY_PAGE_LIMIT = 500;
const DEFAULT_KEY_PAGE_LIMIT = 200;

export const bridgeArgumentSchemas = {
  "keys.page": z.strictObject({
    profile,
    accountKey,
    query: keyQuery.optional(),
    /** The order (creation order, ascending, when left out); ties in creation order. */
    sort: keySortSchema.optional(),
    cursor: z
      .string()
      .regex(/^[\x21-\x7e]{1,512}$/, "must be a cursor of an earlier page (1 to 512 printable characters)")
      .optional(),
    limit: z.int().min(1).max(MAX_KEY_PAGE_LIMIT).default(DEFAULT_KEY_PAGE_LIMIT),
  }),
  "keys.count": z.strictObject({ profile, accountKey, query: keyQuery.optional() }),
  "keys.get": z.strictObject({ profile, accountKey, key: keyId }),
  "keys.lookup": z.strictObject({ profile, accountKey, publicApiKey: z.string().min(1).max(200) }),
  /** The other account of the profile's credentials (a sub-account, or its own) that has this publicApiKey. */
  "keys.lookupElsewhere": z.strictObject({ profile, accountKey, publicApiKey: z.string().min(1).max(200) }),
  "keys.findByFragment": z.strictObject({
    profile,
    accountKey,
    fragment: z
      .string()
      .trim()
      .min(KEY_FRAGMENT_MIN)
      .max(200)
      .regex(/^[0-9A-Za-z-]+$/, "letters, digits and dashes only"),
  }),
  "keys.create": z.strictObject({ profile, accountKey, request: createApiKeyRequestSchema }),
  "keys.createTfa": z.strictObject({ profile, accountKey, name: z.string().max(NAME_MAX_LENGTH).optional() }),
  "keys.update": z.strictObject({ profile, accountKey, key: keyId, request: updateApiKeyRequestSchema }),
  "keys.setEnabled": z.strictObject({ profile, accountKey, key: keyId, enabled: z.boolean() }),
  "keys.revealPublicApiKey": z.strictObject({ profile, accountKey, key: keyId }),
  // ---- roll, bulk enable/disable, export (shared/keyLifecycleBridge.ts) ----
  ...keyLifecycleArgumentSchemas,
  "keys.history": z.strictObject({ profile, accountKey, key: keyId }),
  "keys.usageSeries": z.strictObject({ profile, accountKey, key: keyId }),
  "accounts.list": z.strictObject({ profile }).optional(),
  "accounts.addSubAccount": z.strictObject({
    profile,
    username: z.string().regex(USERNAME_PATTERN, USERNAME_RULE),
    password: password.refine(
      (text) => [...text].length >= MIN_CONSOLE_PASSWORD_LENGTH,
      `must be ${CONSOLE_PASSWORD_RULE}`,
    ),
  }),
  "profiles.list": none,
  "profiles.add": z.strictObject({ name: z.string().min(1).max(100), baseUrl, username, password }),
  "profiles.edit": z.strictObject({
    id: profileId,
    name: z.string().min(1).max(100).optional(),
    baseUrl: baseUrl.optional(),
    username: username.optional(),
    password: password.optional(),
  }),
  "profiles.remove": z.strictObject({ id: profileId }),
  "profiles.test": z.union([
    z.strictObject({ id: profileId }),
    z.strictObject({ baseUrl, username, password }),
  ]),
  "profiles.activate": z.strictObject({ id: profileId }),
  "profiles.revealLocalCredentials": none,
  "profiles.checkActive": none,
  "service.status": none,
  "pins.list": z.strictObject({
    profile,
    to: z.string().max(20).optional(),
    applicationId: z.string().max(64).optional(),
  }),
  "clipboard.copyPublicApiKey": z.strictObject({ profile, accountKey, key: keyId }),
  "settings.get": none,
  "settings.update": z.strictObject({
    clipboardClearSeconds: z.int().min(5).max(3600).optional(),
    theme: z.enum(THEMES, { error: "must be light, dark or auto" }).optional(),
    expiryNotifications: z.boolean().optional(),
  }),
  "notifications.show": z.strictObject({
    items: z
      .array(
        z.strictObject({
          title: z.string().min(1, "must not be empty").max(200),
          body: z.string().max(1000),
        }),
      )
      .min(1)
      .max(MAX_NOTIFICATIONS_PER_CALL),
  }),
  ...syncBridgeArgumentSchemas,
  // ---- 2FA applications and message templates (shared/tfaBridge.ts) ----
  ...tfaBridgeArgumentSchemas,
  // ---- backup and restore of the Local data (shared/backupBridge.ts) ----
  ...backupBridgeArgumentSchemas,
} as const;

export type BridgeMethod = keyof typeof bridgeArgumentSchemas;
// BRIDGE_METHODS, channelOf and EVENT_CHANNEL live in the zod-free ./bridgeMethods.ts (the
// sandboxed preload bundles them) and are re-exported here.

/** What each method answers. */
export interface BridgeResults
  extends SyncBridgeResults,
    TfaBridgeResults,
    KeyLifecycleResults,
    BackupBridgeResults {
  "keys.page": KeyPageDto;
  "keys.count": { count: number };
  "keys.get": ApiKeyView;
  "keys.lookup": ApiKeyView | null;
  "keys.lookupElsewhere": AccountDto | null;
  "keys.findByFragment": KeyFragmentMatchesDto;
  "keys.create": RevealedApiKey;
  "keys.createTfa": RevealedApiKey;
  "keys.update": ApiKeyView;
  "keys.setEnabled": ApiKeyView;
  "keys.revealPublicApiKey": RevealedApiKey;
  "keys.history": KeyHistoryDto;
  "keys.usageSeries": KeyUsageSeriesAnswer;
  "accounts.list": AccountDto[];
  "accounts.addSubAccount": AccountDto;
  "profiles.list": ProfileDto[];
  "profiles.add": ProfileDto;
  "profiles.edit": ProfileDto;
  "profiles.remove": null;
  "profiles.test": ConnectionVerdict;
  "profiles.activate": ProfileDto;
  "profiles.revealLocalCredentials": LocalCredentialsDto;
  "profiles.checkActive": ActiveProfileStatusDto;
  "service.status": ServiceStatusDto;
  "pins.list": CapturedPinDto[];
  "clipboard.copyPublicApiKey": CopyResultDto;
  "settings.get": SettingsDto;
  "settings.update": SettingsDto;
  "notifications.show": NotificationsShownDto;
}

/** The argument a caller passes (defaults not applied yet). */
export type BridgeArgs<M extends BridgeMethod> = z.input<(typeof bridgeArgumentSchemas)[M]>;
/** The argument a handler receives (validated, defaults applied). */
export type BridgeParsedArgs<M extends BridgeMethod> = z.output<(typeof bridgeArgumentSchemas)[M]>;

/**
 * Events main pushes to the renderer. Typed, not parsed on arrival: they come from main (or, in the
 * browser host, from the same host process over its token-guarded loopback event stream), which
 * the renderer trusts; the direction that crosses a trust boundary, the renderer's calls, is
 * parsed in main against bridgeArgumentSchemas.
 */
export type BridgeEvent =
  | { type: "pin"; pin: CapturedPinDto }
  | { type: "pin-state"; state: PinStateDto }
  | { type: "profile-changed"; activeProfileId: string }
  | { type: "service-status"; status: ServiceStatusDto }
  | SyncChangedEvent
  | KeyLifecycleEvent
  | BackupProgressEvent
  | DataRestoredEvent;

/** `window.keydesk` in the renderer: one function per method, plus the event subscription. */
export type KeydeskBridge = {
  [M in BridgeMethod]: (args: BridgeArgs<M>) => Promise<BridgeResult<BridgeResults[M]>>;
} & {
  onEvent(listener: (event: BridgeEvent) => void): () => void;
};
