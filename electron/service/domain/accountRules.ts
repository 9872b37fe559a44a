import { MAX_PASSWORD_BYTES } from "../crypto/passwords.ts";

/** Usernames are what people type into Basic auth: no colon, no spaces, no surprises. */
export const USERNAME_PATTERN = /^[A-Za-z0-9._@+-]{1,64}$/;

export function usernameProblem(username: string): string | undefined {
  return USERNAME_PATTERN.test(username)
    ? undefined
    : "a username is 1 to 64 characters from letters, digits and . _ @ + -";
}

export function passwordProblem(password: string | undefined): string | undefined {
  if (password === undefined || password === "") return "the password is empty: set KEY_SERVICE_PASSWORD";
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES)
    return `the password is longer than ${MAX_PASSWORD_BYTES} bytes`;
  return undefined;
}
