// Run by npm after `npm install` (postinstall). keytar is an optional dependency, and npm drops it
// without a word when it cannot be built: say so once, with what to install. Never fails the install.
// Plain JavaScript: it may run on whatever Node runs npm (20 cannot run TypeScript).
import { createRequire } from "node:module";

try {
  createRequire(import.meta.url)("keytar");
} catch (error) {
  const linux = process.platform === "linux";
  process.stderr.write(
    "keydesk: the OS keychain module (keytar) is not available, so Keydesk will keep remote " +
      "profiles' passwords for one session only (the Local service's secrets stay in files). " +
      (linux
        ? "To get the keychain: sudo apt-get install libsecret-1-dev build-essential python3 (Debian, Ubuntu), then npm install again. "
        : "") +
      `Reason: ${String(error?.message ?? error).split("\n")[0]}\n`,
  );
}
