import path from 'node:path';
import { defineCommand } from '../../src/cli/command.js';
import { CliError } from '../../src/cli/errors.js';
import type { Writer } from '../../src/cli/io.js';
import { dataFileOf, dataOption, openEngine, storeOption, storeUrlOf } from '../../src/cli/local.js';
import type { Scannable } from '../../src/store/fixtures/export.js';

export default defineCommand<{ data?: string; store?: string }>({
  path: ['local', 'export'],
  summary: 'Export a local data file or a PostgreSQL store as a store fixture (works while servers run on it)',
  description: 'Tokens are written as `token_sha256`. The export imports back to the same state. Use `-` for stdout.',
  args: [
    { name: 'file', description: 'where to write the fixture (`-` for stdout)', required: true, complete: 'file' },
  ],
  options: [dataOption, storeOption],
  async run(opts, f) {
    const url = storeUrlOf(f, opts);
    const db = await openEngine(f, { data: opts.data, readOnly: true, url });
    const [{ exportText, exportScanned }, { JsonEngine }, { displayUrl }] = await Promise.all([
      import('../../src/store/fixtures/export.js'),
      import('../../src/store/json/engine.js'),
      import('../../src/store/open.js'),
    ]);
    const file = url ? displayUrl(url) : dataFileOf(f, opts.data);
    // The data file's records from memory; PostgreSQL's read collection by collection.
    const text = () => (db instanceof JsonEngine ? exportText(db.store) : exportScanned(db as unknown as Scannable));
    const target = opts.args[0];
    // Written as it is made (never one string: a million threads are past V8's longest); a file
    // appears whole or not at all.
    try {
      if (target === '-') {
        for await (const piece of text()) await writeOut(f.io.stdout, piece);
      } else {
        const out = path.resolve(f.cwd, target);
        const { nodeFileLayer } = await import('../../src/store/json/files.js');
        await nodeFileLayer.writeAtomic(out, bytes(text())).catch((err: NodeJS.ErrnoException) => {
          throw cannotWrite(out, err);
        });
        f.io.stderr.write(`exported ${file} to ${out}\n`);
      }
    } finally {
      // A PostgreSQL store holds connections open until closed.
      await db.close();
    }
    return 0;
  },
});

/** A file that cannot be written: which, and why, in words (the temporary file's name is ours, not the user's). */
function cannotWrite(out: string, err: NodeJS.ErrnoException): Error {
  const why: Record<string, string> = {
    ENOENT: `the directory ${path.dirname(out)} does not exist`,
    EACCES: `permission denied`,
    EROFS: 'the file system is read-only',
    ENOSPC: 'the disk is full',
    EISDIR: 'it is a directory',
  };
  if (!err.code || !why[err.code]) return err;
  return new CliError(`Cannot write the export to ${out}: ${why[err.code]}. Nothing was written.`, 1);
}

async function* bytes(pieces: AsyncIterable<string>): AsyncIterable<Buffer> {
  for await (const p of pieces) yield Buffer.from(p, 'utf8');
}

/** Writes a piece, waiting when the stream asks to (a slow pipe must not fill memory). */
function writeOut(stream: Writer & { once?: (event: 'drain', fn: () => void) => unknown }, piece: string) {
  return new Promise<void>((resolve) =>
    stream.write(piece) || !stream.once ? resolve() : stream.once('drain', resolve),
  );
}
