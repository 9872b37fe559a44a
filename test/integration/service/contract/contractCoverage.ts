import {
  OPERATION_METHODS,
  type OpenApiDocument,
  type OperationObject,
  type Resolution,
  type UnroutedAnswers,
} from "../../../harness/openApiConformance.ts";

/**
 * Which documented answers the contract suite reached: every (operation, status) the document
 * lists, plus the root extensions' statuses, against the ones real answers landed on. What is
 * documented but never reached is either a promise the service does not keep or a gap in the
 * suite; both fail.
 */

const UNROUTED = ["x-unknown-path", "x-method-not-allowed"] as const;

/** "GET /settings/1/accounts/{accountKey}/api-keys 404", "x-unknown-path 400", ... */
export function documentedAnswers(doc: OpenApiDocument): Set<string> {
  const answers = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!OPERATION_METHODS.includes(method)) continue;
      for (const status of Object.keys((operation as OperationObject).responses))
        answers.add(`${method.toUpperCase()} ${path} ${status}`);
    }
  }
  for (const name of UNROUTED) {
    for (const status of Object.keys((doc[name] as UnroutedAnswers | undefined)?.responses ?? {}))
      answers.add(`${name} ${status}`);
  }
  return answers;
}

export class ContractCoverage {
  readonly #reached = new Set<string>();

  record(resolution: Resolution): void {
    if (resolution.responseKey) this.#reached.add(`${resolution.operation} ${resolution.responseKey}`);
  }

  has(answer: string): boolean {
    return this.#reached.has(answer);
  }

  /** Documented answers no request reached, apart from those `exempt` names. */
  missing(doc: OpenApiDocument, exempt: (answer: string) => boolean): string[] {
    return [...documentedAnswers(doc)].filter((answer) => !this.#reached.has(answer) && !exempt(answer));
  }
}
