import { readFile } from 'node:fs/promises';
import { FixtureError, importRecords, lookupWith, parseFixture } from './fixture.js';
import type { Store } from './store.js';

/** Reads one fixture file as JSON; a file that cannot be read or parsed is a FixtureError naming it. */
export async function readFixture(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new FixtureError(file, [
      { path: '$', message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` },
    ]);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new FixtureError(file, [{ path: '$', message: `is not valid JSON (${(err as Error).message})` }]);
  }
}

/**
 * Reads, validates and imports fixture files into a store: all or nothing. `parsed` are the files'
 * documents when the caller already read them (a 100 MB fixture is not parsed twice).
 */
export async function seedStore(store: Store, files: string[], parsed?: unknown[]): Promise<Record<string, number>> {
  const docs = parsed
    ? files.map((file, i) => ({ file, doc: parsed[i] }))
    : await Promise.all(files.map(async (file) => ({ file, doc: await readFixture(file) })));
  // Validate every file before writing any, each against the store plus the files before it, then
  // write them in ONE transaction: a failure anywhere leaves the store as it was.
  const all: ReturnType<typeof parseFixture>[] = [];
  for (const { file, doc } of docs) all.push(parseFixture(doc, file, lookupWith(store, all)));
  return importRecords(store, ...all);
}
