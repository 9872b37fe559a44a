import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Account passwords, stored as scrypt hashes. Parameters travel with each hash
 * (`scrypt$N$r$p$salt$hash`) so they can be raised later without breaking old ones.
 * N=2^15, r=8, p=3 is one of OWASP's recommended scrypt settings.
 */

const PARAMS = { N: 2 ** 15, r: 8, p: 3 };
const KEY_BYTES = 32;
export const MAX_PASSWORD_BYTES = 1024;

function derive(password: string, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_BYTES, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, PARAMS.N, PARAMS.r, PARAMS.p);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), hash.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await derive(password, Buffer.from(salt, "base64"), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash no password matches; verifying against it keeps unknown-user attempts as slow as real ones. */
export const DECOY_PASSWORD_HASH = `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${Buffer.alloc(16).toString("base64")}$${Buffer.alloc(KEY_BYTES).toString("base64")}`;
