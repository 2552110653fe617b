import type { z } from 'zod';

export type FieldErrors = Record<string, string[]>;

/** `items.0.title` style path; the empty path is the whole body. */
export function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.map(String).join('.');
}

function message(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'too_big': {
      const i = issue as z.core.$ZodIssueTooBig;
      if (i.origin === 'string') return `Must be at most ${i.maximum} characters.`;
      if (i.origin === 'array') return `Must have at most ${i.maximum} entries.`;
      return `Must be at most ${i.maximum}.`;
    }
    case 'too_small': {
      const i = issue as z.core.$ZodIssueTooSmall;
      if (i.origin === 'string')
        return Number(i.minimum) <= 1 ? 'Must not be empty.' : `Must be at least ${i.minimum} characters.`;
      if (i.origin === 'array') return `Must have at least ${i.minimum} entries.`;
      return `Must be at least ${i.minimum}.`;
    }
    case 'invalid_type': {
      const i = issue as z.core.$ZodIssueInvalidType;
      // zod 4 leaves the input out of issues; its message still says what was received.
      const received =
        'input' in i && i.input !== undefined ? describe(i.input) : /received (\w+)/.exec(issue.message)?.[1];
      if (received === 'undefined' || received === undefined) return 'Required.';
      const expected =
        i.expected === 'int' ? 'an integer' : /^[aeiou]/.test(i.expected) ? `an ${i.expected}` : `a ${i.expected}`;
      const what =
        received === 'null' || received.startsWith('a')
          ? received
          : /^[aeiou]/.test(received)
            ? `an ${received}`
            : `a ${received}`;
      return `Must be ${expected}; received ${i.expected === 'int' && received === 'number' ? 'a non-integer number' : what}.`;
    }
    case 'invalid_value': {
      const i = issue as z.core.$ZodIssueInvalidValue;
      return `Must be one of: ${i.values.map((v) => String(v)).join(', ')}.`;
    }
    case 'invalid_format': {
      const i = issue as z.core.$ZodIssueInvalidStringFormat;
      if (i.format === 'regex') return issue.message;
      return `Must be a valid ${i.format === 'datetime' ? 'ISO 8601 date-time' : i.format}.`;
    }
    default:
      return issue.message;
  }
}

function describe(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'number' && Number.isNaN(input)) return 'not a number';
  if (typeof input === 'string') return 'a string';
  return typeof input === 'object' ? 'an object' : `a ${typeof input}`;
}

/**
 * The one place zod issues become field errors: `{path: [messages]}`. Unknown members get a path
 * each, so a caller sees every offending name.
 */
export function fieldErrors(issues: ReadonlyArray<z.core.$ZodIssue>, prefix?: string): FieldErrors {
  const out: FieldErrors = {};
  const add = (path: string, msg: string) => {
    const key = prefix ? (path ? `${prefix}.${path}` : prefix) : path || '(body)';
    // An own property even for `__proto__` or `constructor`: `out[key] ??= []` would find the
    // inherited value (Object.prototype, Object) and throw, turning a 422 into a 500.
    if (!Object.hasOwn(out, key))
      Object.defineProperty(out, key, { value: [], enumerable: true, writable: true, configurable: true });
    out[key].push(msg);
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of (issue as z.core.$ZodIssueUnrecognizedKeys).keys) {
        add(issuePath([...issue.path, key]), 'Unknown field: not part of this operation.');
      }
    } else if (issue.code === 'invalid_union') {
      add(issuePath(issue.path), issue.message);
    } else {
      add(issuePath(issue.path), message(issue));
    }
  }
  return out;
}
