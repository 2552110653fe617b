import { FORBIDDEN_KEYS, MAX_JSON_DEPTH } from '../contract/common.js';
import { validationFailed } from './problems.js';

/** A patch that cannot be applied safely (a prototype key, or nesting past the limit). */
export class MergePatchError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * JSON Merge Patch (RFC 7396): returns a new value; `target` and `patch` are never mutated.
 * - an object patch merges key by key: `null` removes the key, any other value is merged in;
 * - anything else (string, number, boolean, array) replaces the target whole.
 *
 * Every object in the result is built from a plain `{}` literal with only own, enumerable keys,
 * and `__proto__`, `constructor` and `prototype` are refused (MergePatchError), so a patch can
 * never reach a prototype, whatever object the caller hands in.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return merge(target, patch, '', 0);
}

function merge(target: unknown, patch: unknown, path: string, depth: number): unknown {
  if (depth > MAX_JSON_DEPTH) throw new MergePatchError(path, `nesting deeper than ${MAX_JSON_DEPTH} levels`);
  if (!isObject(patch)) return copy(patch, path, depth);
  const out: Record<string, unknown> = {};
  if (isObject(target)) {
    for (const key of Object.keys(target)) {
      if (FORBIDDEN_KEYS.has(key)) continue; // never carried over, even from stored data
      out[key] = target[key];
    }
  }
  for (const key of Object.keys(patch)) {
    const at = path ? `${path}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key)) throw new MergePatchError(at, `the key \`${key}\` is not allowed`);
    const value = patch[key];
    if (value === null) delete out[key];
    else out[key] = merge(out[key], value, at, depth + 1);
  }
  return out;
}

/**
 * A non-object value taken over from the patch. Arrays replace whole (RFC 7396) and their contents
 * are data, not patches: they are copied as they are, nulls included, prototype keys refused.
 */
function copy(value: unknown, path: string, depth: number): unknown {
  if (depth > MAX_JSON_DEPTH) throw new MergePatchError(path, `nesting deeper than ${MAX_JSON_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((v, i) => copy(v, `${path}.${i}`, depth + 1));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const at = `${path}.${key}`;
    if (FORBIDDEN_KEYS.has(key)) throw new MergePatchError(at, `the key \`${key}\` is not allowed`);
    out[key] = copy(value[key], at, depth + 1);
  }
  return out;
}

/**
 * A merge patch applied to one object member of a record (a form's `settings`, a page's `chat`);
 * `null` for the member itself empties it. A refused patch is a 422 naming the offending path.
 */
export function mergeMember<T extends object>(member: string, stored: T, patch: object | null): T {
  if (patch === null) return {} as T;
  try {
    return applyMergePatch(stored, patch) as T;
  } catch (err) {
    if (err instanceof MergePatchError)
      throw validationFailed({ [`${member}.${err.path}`]: [`Invalid object: ${err.message}.`] });
    throw err;
  }
}
