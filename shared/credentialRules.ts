/**
 * What an account's username and a console-made password must be: the service checks the username
 * (electron/service/domain/accountRules.ts), the bridge and the sub-account form check both, with
 * the same words.
 */

/** Usernames are what people type into Basic auth: no colon, no spaces, no surprises. */
export const USERNAME_PATTERN = /^[A-Za-z0-9._@+-]{1,64}$/;
export const USERNAME_RULE = "a username is 1 to 64 characters from letters, digits and . _ @ + -";

/**
 * The shortest password the console sets for an account it makes (its strength hint's floor). The
 * service itself takes any password (an operator's CLI, an existing secret); the console does not
 * offer a weaker one than it advises.
 */
export const MIN_CONSOLE_PASSWORD_LENGTH = 8;
export const CONSOLE_PASSWORD_RULE = `at least ${MIN_CONSOLE_PASSWORD_LENGTH} characters`;
