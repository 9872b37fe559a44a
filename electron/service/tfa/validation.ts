import type { z } from "zod";
import type { ValidationErrors } from "../../../shared/apiErrors.ts";

function addError(errors: ValidationErrors, field: string, message: string): void {
  // Own entries only: a field named "constructor" must not reach Object.prototype.
  const list = Object.hasOwn(errors, field) ? (errors[field] as string[]) : [];
  if (!list.includes(message)) list.push(message);
  Object.defineProperty(errors, field, { value: list, enumerable: true, writable: true, configurable: true });
}

const joinPath = (path: readonly PropertyKey[]) => path.map(String).join(".");

/**
 * Schema issues as per-field messages, nested fields named by their dotted path
 * (`configuration.pinTimeToLive`); each unknown field gets its own entry.
 */
export function validationErrorsByPath(issues: readonly z.core.$ZodIssue[], root = "body"): ValidationErrors {
  const errors: ValidationErrors = {};
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) addError(errors, joinPath([...issue.path, key]), "is not a known field");
    } else {
      addError(errors, issue.path.length > 0 ? joinPath(issue.path) : root, issue.message);
    }
  }
  return errors;
}
