import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './errors.js';
import type { Factory } from './factory.js';

/**
 * The text of a file named by a flag, or of standard input for `-` (as `wcm api --input -`). A
 * terminal on stdin is refused, so nothing waits for typing that never comes.
 */
export async function readInputText(f: Factory, flag: string, file: string): Promise<{ text: string; name: string }> {
  if (file === '-') {
    if (f.io.isStdinTTY)
      throw new UsageError(
        `\`${flag} -\` reads standard input, which is a terminal here.`,
        `Pipe it in, or give a file: \`${flag} FILE\`.`,
      );
    let text = '';
    for await (const chunk of f.io.stdin)
      text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    return { text, name: 'standard input' };
  }
  const full = path.resolve(f.cwd, file);
  try {
    return { text: await readFile(full, 'utf8'), name: full };
  } catch (err) {
    throw new UsageError(
      `\`${flag}\`: cannot read ${full} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
    );
  }
}

/**
 * Refuses two flags that would both read standard input (`--file - --fields-file -`, `--file -`
 * with `--set k=@-`): it can be read once. `uses` lists each flag that reads it.
 */
export function oneStdinReader(uses: Array<string | false | undefined>): void {
  const readers = uses.filter((u): u is string => !!u);
  if (readers.length > 1)
    throw new UsageError(
      `${readers.map((r) => `\`${r}\``).join(' and ')} both read standard input, which can be read once.`,
      'Put all but one of them in a file.',
    );
}

/** Reads a JSON file named by a flag (`-`: standard input); says which flag and why when it cannot. */
export async function readJsonFile(f: Factory, flag: string, file: string): Promise<unknown> {
  const { text, name } = await readInputText(f, flag, file);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`\`${flag}\`: ${name} is not valid JSON (${(err as Error).message}).`);
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
