/**
 * The Debian / Ubuntu packages the OS keychain needs on Linux, named alike by the Settings tab, the
 * install's messages and the docs (test/unit/readme.test.ts checks the docs name these).
 */

/** What building keytar (the keychain module) needs at `npm install`. */
export const KEYCHAIN_BUILD_PACKAGES = "libsecret-1-dev build-essential python3";

/**
 * What a running Keydesk needs: the libsecret library and a Secret Service (gnome-keyring), which
 * it reaches over a D-Bus session (a desktop session has one; elsewhere dbus-run-session makes one).
 */
export const KEYCHAIN_RUNTIME_PACKAGES = "libsecret-1-0 gnome-keyring dbus dbus-x11";
