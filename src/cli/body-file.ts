import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './errors.js';
import type { Factory } from './factory.js';

/** Reads a JSON file named by a flag; says which flag and why when it cannot. */
export async function readJsonFile(f: Factory, flag: string, file: string): Promise<unknown> {
  const full = path.resolve(f.cwd, file);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (err) {
    throw new UsageError(
      `\`${flag}\`: cannot read ${full} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`\`${flag}\`: ${full} is not valid JSON (${(err as Error).message}).`);
  }
}

/** A JSON file that must hold one object: the request body, merged with the other flags. */
export async function readBodyFile(f: Factory, file: string): Promise<Record<string, unknown>> {
  const body = await readJsonFile(f, '--file', file);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new UsageError('`--file` must hold one JSON object: the request body (e.g. {"name": "…"}).');
  }
  return body as Record<string, unknown>;
}
