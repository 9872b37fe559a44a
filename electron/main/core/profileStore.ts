import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/**
 * The desktop app's settings file, `<dataDir>/settings.json`: connection profiles without their
 * passwords (those live in the CredentialVault), the active profile, the embedded service's
 * remembered port, the clipboard delay, the colour scheme, whether automatic backups are on and whether expiring keys are announced. Written atomically (temporary file, then rename);
 * checked on every read. A file that cannot be read as settings is kept aside as
 * `settings.json.corrupt-<time>` and the app starts with fresh settings.
 */

const SETTINGS_FILE = "settings.json";
export const LOCAL_PROFILE_ID = "local";
const DEFAULT_CLIPBOARD_CLEAR_SECONDS = 30;

const profileSchema = z.strictObject({
  id: z.string().min(1).max(100),
  name: z.string().min(1).max(100),
  kind: z.enum(["local", "remote"]),
  baseUrl: z.string().max(2000),
  username: z.string().min(1).max(200),
});

const settingsSchema = z.strictObject({
  version: z.literal(1),
  profiles: z.array(profileSchema),
  activeProfileId: z.string().nullable(),
  rememberedPort: z.int().min(0).max(65535).nullable(),
  clipboardClearSeconds: z.int().min(5).max(3600),
  /** Absent in files written before it existed: the system's scheme. */
  theme: z.enum(["light", "dark", "auto"]).optional(),
  /** Automatic backups of the Local data (their passphrase is in the OS keychain); absent: off. */
  autoBackup: z.boolean().optional(),
  /** Notifications of keys expiring soon; absent: on (an admin learns of them unless they opt out). */
  expiryNotifications: z.boolean().optional(),
});

export type StoredProfile = z.infer<typeof profileSchema>;
export type Settings = z.infer<typeof settingsSchema>;

const freshSettings = (): Settings => ({
  version: 1,
  profiles: [],
  activeProfileId: null,
  rememberedPort: null,
  clipboardClearSeconds: DEFAULT_CLIPBOARD_CLEAR_SECONDS,
});

export class ProfileStore {
  readonly path: string;
  /** Where an unreadable settings file was moved to at start, if one was. */
  readonly corruptBackup: string | undefined;
  #settings: Settings;

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.path = join(dataDir, SETTINGS_FILE);
    const loaded = this.#load();
    this.#settings = loaded.settings;
    this.corruptBackup = loaded.corruptBackup;
  }

  #load(): { settings: Settings; corruptBackup?: string } {
    if (!existsSync(this.path)) return { settings: freshSettings() };
    try {
      return { settings: settingsSchema.parse(JSON.parse(readFileSync(this.path, "utf8"))) };
    } catch {
      const backup = `${this.path}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}`;
      renameSync(this.path, backup);
      return { settings: freshSettings(), corruptBackup: backup };
    }
  }

  get settings(): Readonly<Settings> {
    return this.#settings;
  }

  profiles(): StoredProfile[] {
    return this.#settings.profiles.map((profile) => ({ ...profile }));
  }

  profile(id: string): StoredProfile | undefined {
    const profile = this.#settings.profiles.find((candidate) => candidate.id === id);
    return profile && { ...profile };
  }

  /** Applies a change to a copy, checks it, writes it, then keeps it. */
  update(change: (settings: Settings) => void): Settings {
    const next = structuredClone(this.#settings);
    change(next);
    const checked = settingsSchema.parse(next);
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(checked, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
    this.#settings = checked;
    return checked;
  }

  upsertProfile(profile: StoredProfile): void {
    this.update((settings) => {
      const index = settings.profiles.findIndex((candidate) => candidate.id === profile.id);
      if (index === -1) settings.profiles.push(profile);
      else settings.profiles[index] = profile;
    });
  }
}
