/**
 * Finds the documented path template (`/settings/1/accounts/{accountKey}/api-keys/{key}`) a
 * concrete request path (`/settings/1/accounts/_/api-keys/0A1B...?x=1`) was answered under, the
 * way the service's router picks its route: segment by segment, a literal segment before a
 * parameter, any non-empty segment for a parameter (the parameter's own rules are the route's to
 * check, and its refusal is then an answer of that operation), one trailing slash ignored.
 */

type Segment = { literal: string } | { parameter: string };

export interface PathTemplate {
  template: string;
  segments: Segment[];
}

const PARAMETER = /^\{([^}]+)\}$/;

export function compileTemplates(templates: Iterable<string>): PathTemplate[] {
  return [...templates].map((template) => ({
    template,
    segments: template
      .split("/")
      .slice(1)
      .map((part) => {
        const parameter = PARAMETER.exec(part)?.[1];
        return parameter === undefined ? { literal: part } : { parameter };
      }),
  }));
}

/** The path without query, split into decoded segments; undefined when it is not a valid path. */
export function pathSegments(path: string): string[] | undefined {
  let bare = path.split("?")[0] ?? "";
  // The router treats `/a/b/` as `/a/b` (ignoreTrailingSlash), so the answer is `/a/b`'s.
  if (bare.length > 1 && bare.endsWith("/")) bare = bare.slice(0, -1);
  if (!bare.startsWith("/")) return undefined;
  try {
    return bare.split("/").slice(1).map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/** Whether `segments` fits the template; literal segments compare after percent-decoding. */
function fits(template: PathTemplate, segments: string[]): boolean {
  if (template.segments.length !== segments.length) return false;
  return template.segments.every((segment, index) => {
    const actual = segments[index] as string;
    return "literal" in segment ? segment.literal === actual : actual !== "";
  });
}

/** Orders candidates like a router does: at the first segment where they differ, the literal one wins. */
function moreSpecific(a: PathTemplate, b: PathTemplate): number {
  for (let index = 0; index < a.segments.length; index++) {
    const aLiteral = "literal" in (a.segments[index] as Segment);
    const bLiteral = "literal" in (b.segments[index] as Segment);
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}

/** The template a concrete path is answered under, or undefined when no documented path fits it. */
export function matchTemplate(templates: PathTemplate[], path: string): string | undefined {
  const segments = pathSegments(path);
  if (!segments) return undefined;
  const candidates = templates.filter((template) => fits(template, segments));
  return candidates.sort(moreSpecific)[0]?.template;
}
