import { z } from "zod";

/**
 * Boolean query parameters of the provider's APIs, read the way real clients write them.
 *
 * Clients spell booleans in many ways: JavaScript `true`, Python's requests `True`, PHP's
 * http_build_query `1`/`0`. The official Node SDK even sends `ncNeeded=undefined` when its optional
 * argument is left out. The provider answers these with its default instead of failing the call,
 * so an app that works against the provider must work here the first time: the spellings Spring
 * (the provider's server side) reads as booleans count, and any other value (empty, `undefined`,
 * `null`, garbage) is the same as leaving the parameter out.
 */

const TRUE_SPELLINGS = new Set(["true", "1", "yes", "on"]);
const FALSE_SPELLINGS = new Set(["false", "0", "no", "off"]);

/** For documentation and error texts. */
export const QUERY_BOOLEAN_SPELLINGS = "true/false, 1/0, yes/no or on/off, in any case";

/** The boolean a query value spells, or undefined when it spells none (the caller's default applies). */
function parseQueryBoolean(value: string): boolean | undefined {
  const spelled = value.trim().toLowerCase();
  if (TRUE_SPELLINGS.has(spelled)) return true;
  if (FALSE_SPELLINGS.has(spelled)) return false;
  return undefined;
}

/**
 * A boolean query parameter: true, false, or undefined (absent or not a boolean: the default).
 * Given twice it is still a 400: the two values may contradict each other, and no client sends that.
 */
export const lenientBooleanQuery = z
  .string({ error: "must be given once" })
  .optional()
  .transform((value) => (value === undefined ? undefined : parseQueryBoolean(value)));
