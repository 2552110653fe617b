import { promises as fs } from 'node:fs';
import path from 'node:path';
import { defineCommand } from '../../src/cli/command.js';
import type { Factory } from '../../src/cli/factory.js';
import { CliError } from '../../src/cli/errors.js';
import { dataFileOf, dataOption, storeOption, storeUrlOf } from '../../src/cli/local.js';

export default defineCommand<{ data?: string; store?: string; replace?: boolean }>({
  path: ['local', 'import'],
  summary: 'Import store fixtures into a local data file (not while a server runs on it) or a PostgreSQL store',
  description:
    "Adds the fixtures' records; ids that already exist are refused. With --replace, the data file is\nreplaced by the fixtures. A bad fixture is rejected with the JSON path, and nothing is imported.\n" +
    'With --store, into the PostgreSQL store while its servers run: every process sees the import at once.',
  args: [
    {
      name: 'fixture',
      description: 'store fixture files (docs/fixtures.md)',
      required: true,
      variadic: true,
      complete: 'file',
    },
  ],
  options: [
    dataOption,
    storeOption,
    { flags: '--replace', description: 'replace everything in the data file with the fixtures' },
  ],
  async run(opts, f) {
    const url = storeUrlOf(f, opts);
    // Every fixture is found before any store is opened: a typo creates no data file or journal.
    const { checkFixturesExist, FixtureNotFoundError } = await import('../../src/store/seed.js');
    await checkFixturesExist(opts.args.map((a) => path.resolve(f.cwd, a))).catch((err: unknown) => {
      throw err instanceof FixtureNotFoundError ? new CliError(err.message, 1) : err;
    });
    if (url) return importShared(f, url, opts.args, !!opts.replace);
    const file = dataFileOf(f, opts.data);
    const { readLock, StoreLockedError } = await import('../../src/store/lock.js');
    const holder = await readLock(file);
    if (holder)
      throw new CliError(
        `A wcm server (pid ${holder.pid}) is running on ${file}; stop it before importing.`,
        1,
        'Or seed a running server through the API with `wcm seed`.',
      );
    const { Store } = await import('../../src/store/store.js');
    const { seedStore } = await import('../../src/store/seed.js');
    const { FixtureError } = await import('../../src/store/fixture.js');
    const fixtures = opts.args.map((a) => path.resolve(f.cwd, a));
    if (opts.replace) {
      // Validate into a fresh store beside the real one, then swap: the old data stays until the new is whole.
      const tmp = `${file}.import-${process.pid}`;
      await fs.rm(tmp, { force: true });
      await fs.rm(`${tmp}.journal`, { force: true });
      let counts: Record<string, number>;
      const fresh = await Store.open(tmp);
      try {
        counts = await seedStore(fresh, fixtures);
      } catch (err) {
        await fresh.close();
        await Promise.all([fs.rm(tmp, { force: true }), fs.rm(`${tmp}.journal`, { force: true })]);
        if (err instanceof FixtureError) throw new CliError(err.message, 1);
        throw err;
      }
      await fresh.close();
      const lock = await (await import('../../src/store/lock.js')).acquireLock(file).catch((err) => {
        if (err instanceof StoreLockedError) throw new CliError(err.message);
        throw err;
      });
      try {
        await fs.rename(tmp, file);
        await fs.rm(`${file}.journal`, { force: true });
        await fs.rm(`${tmp}.journal`, { force: true });
      } finally {
        await lock();
      }
      f.io.stdout.write(`replaced ${file} with ${summary(counts)}\n`);
      return 0;
    }
    const store = await f.store({ data: opts.data });
    try {
      const counts = await seedStore(store, fixtures);
      f.io.stdout.write(`imported into ${file}: ${summary(counts)}\n`);
    } catch (err) {
      if (err instanceof FixtureError) throw new CliError(err.message, 1);
      throw err;
    } finally {
      await store.close();
    }
    return 0;
  },
});

function summary(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([k, v]) => `${v} ${k}`);
  return parts.length ? parts.join(', ') : 'nothing (the fixtures are empty)';
}

/**
 * Into a PostgreSQL store, in one transaction (src/store/seed.ts, importShared): the fixtures are
 * checked against what the database holds (ids already there are refused) as their threads are
 * written, or, with --replace, swapped in for everything but the settings; nothing is written if
 * one is bad, and every process on the database sees all of it at once.
 */
async function importShared(f: Factory, url: string, args: string[], replace: boolean): Promise<number> {
  const seed = await import('../../src/store/seed.js');
  const { FixtureError } = await import('../../src/store/fixture.js');
  const files = args.map((a) => path.resolve(f.cwd, a));
  const target = await f.store({ url });
  let counts: Record<string, number>;
  try {
    counts = await seed.importShared(target, files, { replace });
  } catch (err) {
    await target.close();
    if (err instanceof FixtureError) throw new CliError(err.message, 1);
    throw err;
  }
  try {
    f.io.stdout.write(`${replace ? 'replaced the data of' : 'imported into'} ${target.file}: ${summary(counts)}\n`);
    return 0;
  } finally {
    await target.close();
  }
}
