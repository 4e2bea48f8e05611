import type { z } from 'zod';
import { AppError, type ErrorCode, type ValidationIssue } from '../domain/errors.js';

/**
 * Maps zod 4 issues to the spec's `details` shape. zod 3 put `type`, `exact`
 * and friends on size issues; zod 4 calls the type `origin` and may omit
 * `exact`. The spec's keys (code, minimum|maximum, type, inclusive, exact,
 * message, path) are produced here, in one place, whatever zod says.
 */
function toDetails(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): ValidationIssue[] {
  return issues.flatMap((i): ValidationIssue | ValidationIssue[] => {
    const path = [...prefix, ...i.path].map((p) => (typeof p === 'symbol' ? String(p) : p));
    switch (i.code) {
      case 'too_small':
      case 'too_big':
        return {
          code: i.code,
          ...(i.code === 'too_small' ? { minimum: Number(i.minimum) } : { maximum: Number(i.maximum) }),
          type: typeOf(i.origin),
          inclusive: i.inclusive ?? true,
          exact: i.exact ?? false,
          message: i.message,
          path,
        };
      case 'invalid_type':
        return { code: i.code, expected: i.expected, message: i.message, path };
      case 'invalid_value':
        return { code: i.code, options: i.values.map(String), message: i.message, path };
      case 'unrecognized_keys':
        return { code: i.code, keys: i.keys, message: i.message, path };
      case 'invalid_union': {
        // "Invalid input" helps nobody. When the value had the type of exactly
        // one option (an actor string that is empty, a field value string that
        // is too long), that option's own issues say what is wrong.
        const matching = i.errors.filter((branch) => !branch.every((b) => b.code === 'invalid_type' && b.path.length === 0));
        if (matching.length === 1) return toDetails(matching[0]!, [...prefix, ...i.path]);
        return { code: i.code, message: i.message, path };
      }
      default:
        return { code: i.code, message: i.message, path };
    }
  });
}

function typeOf(origin: string): string {
  // zod 3 called array sizes "array" and string lengths "string": keep those names.
  return origin === 'number' || origin === 'int' || origin === 'bigint' ? 'number' : origin;
}

/**
 * The 400 for a zod failure, wherever it happens (generated route validators,
 * hand-parsed bodies, the webhook): `details` in the spec's shape, and a
 * `detail` line a person can read.
 */
export function validationError(code: ErrorCode, issues: readonly z.core.$ZodIssue[]): AppError {
  const details = toDetails(issues);
  return new AppError(code, details.map((d) => `${d.path.join('.') || '(body)'}: ${d.message}`).join('; '), { details });
}
