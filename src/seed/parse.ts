import { STEP_NAME, jsonPath, type Json } from './refs.js';

/** One thing wrong with the seed files, located as precisely as we can. */
export interface SeedProblem {
  file: string;
  /** The step's name when it has a usable one. */
  step?: string;
  /** The step's index in its file's `steps`. */
  index?: number;
  /** JSON path inside the file, e.g. `$.steps[2].body.title`. */
  path: string;
  message: string;
}

/** A step as written, with where it came from. Members that were malformed are left out. */
export interface RawStep {
  file: string;
  index: number;
  name?: string;
  operation?: string;
  params: Record<string, string | number | boolean>;
  /** `undefined` when the step has no `body` member. */
  body?: Json;
  idempotencyKey?: string;
}

export const FILE_MEMBERS = ['$schema', 'version', 'description', 'steps'] as const;
export const STEP_MEMBERS = ['name', 'operation', 'description', 'params', 'body', 'idempotency_key'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const kindOf = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/**
 * Checks one file's shape (docs/cli.md: Seeding any instance): `version` 1, a `steps` array, known members only, a
 * valid `name` and an `operation` on every step. Operations, parameters and references are the
 * validator's job; this only makes sure there is something to validate.
 */
export function parseSeedFile(text: string, file: string): { steps: RawStep[]; problems: SeedProblem[] } {
  const problems: SeedProblem[] = [];
  const problem = (path: Array<string | number>, message: string, at?: { index: number; name?: string }) =>
    problems.push({ file, ...(at ? { index: at.index, step: at.name } : {}), path: jsonPath(path), message });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    problem([], `is not valid JSON (${(err as Error).message}).`);
    return { steps: [], problems };
  }
  if (!isObject(doc)) {
    problem([], `must be a JSON object like {"version": 1, "steps": [...]}; received ${kindOf(doc)}.`);
    return { steps: [], problems };
  }
  for (const k of Object.keys(doc)) {
    if (!(FILE_MEMBERS as readonly string[]).includes(k))
      problem([k], `unknown member \`${k}\` (a seed file has ${FILE_MEMBERS.map((m) => `\`${m}\``).join(', ')}).`);
  }
  if (doc.version !== 1) {
    problem(
      ['version'],
      doc.version === undefined
        ? '`version` is required and must be 1.'
        : `\`version\` must be 1; received ${JSON.stringify(doc.version)}.`,
    );
  }
  if (doc.description !== undefined && typeof doc.description !== 'string')
    problem(['description'], `must be a string; received ${kindOf(doc.description)}.`);
  if (!Array.isArray(doc.steps)) {
    problem(
      ['steps'],
      doc.steps === undefined
        ? '`steps` is required: an array of {"name", "operation", "params", "body"}.'
        : `\`steps\` must be an array; received ${kindOf(doc.steps)}.`,
    );
    return { steps: [], problems };
  }
  const steps: RawStep[] = [];
  doc.steps.forEach((s: unknown, index: number) => {
    const at = ['steps', index];
    if (!isObject(s)) {
      problem(at, `a step must be an object with \`name\` and \`operation\`; received ${kindOf(s)}.`, { index });
      return;
    }
    const step: RawStep = { file, index, params: {} };
    if (typeof s.name === 'string' && STEP_NAME.test(s.name) && s.name !== 'env') step.name = s.name;
    const where = { index, name: step.name };
    if (s.name === undefined)
      problem([...at, 'name'], '`name` is required: later steps and `--output` refer to a step by its name.', where);
    else if (s.name === 'env')
      problem([...at, 'name'], '`env` is reserved for `${env:NAME}` references; choose another name.', where);
    else if (step.name === undefined) {
      problem(
        [...at, 'name'],
        `\`name\` must start with a letter or _ and hold only letters, digits, _ and -; received ${JSON.stringify(s.name)}.`,
        where,
      );
    }
    for (const k of Object.keys(s)) {
      if (!(STEP_MEMBERS as readonly string[]).includes(k))
        problem(
          [...at, k],
          `unknown member \`${k}\` (a step has ${STEP_MEMBERS.map((m) => `\`${m}\``).join(', ')}).`,
          where,
        );
    }
    if (typeof s.operation === 'string' && s.operation) step.operation = s.operation;
    else
      problem(
        [...at, 'operation'],
        s.operation === undefined
          ? '`operation` is required: an operationId such as `createListing`.'
          : `\`operation\` must be an operationId string; received ${JSON.stringify(s.operation)}.`,
        where,
      );
    if (s.description !== undefined && typeof s.description !== 'string')
      problem([...at, 'description'], `must be a string; received ${kindOf(s.description)}.`, where);
    if (s.params !== undefined) {
      if (!isObject(s.params))
        problem(
          [...at, 'params'],
          `\`params\` must be an object of path and query parameters; received ${kindOf(s.params)}.`,
          where,
        );
      else {
        for (const [k, v] of Object.entries(s.params)) {
          if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') step.params[k] = v;
          else
            problem(
              [...at, 'params', k],
              `a parameter must be a string, number or boolean; received ${kindOf(v)}.`,
              where,
            );
        }
      }
    }
    if ('body' in s) step.body = s.body as Json;
    if (s.idempotency_key !== undefined) {
      if (typeof s.idempotency_key === 'string') step.idempotencyKey = s.idempotency_key;
      else problem([...at, 'idempotency_key'], `must be a string; received ${kindOf(s.idempotency_key)}.`, where);
    }
    steps.push(step);
  });
  return { steps, problems };
}
