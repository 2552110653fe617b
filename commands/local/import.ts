import path from 'node:path';
import { defineCommand } from '../../src/cli/command.js';
import { CliError } from '../../src/cli/errors.js';
import { dataFileOf, dataOption, openEngine, storeOption, storeUrlOf } from '../../src/cli/local.js';

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
    const { checkFixturesExist, FixtureNotFoundError } = await import('../../src/store/fixtures/seed.js');
    await checkFixturesExist(opts.args.map((a) => path.resolve(f.cwd, a))).catch((err: unknown) => {
      throw err instanceof FixtureNotFoundError ? new CliError(err.message, 1) : err;
    });
    const files = opts.args.map((a) => path.resolve(f.cwd, a));
    const file = url ? undefined : dataFileOf(f, opts.data);
    if (file) {
      const { readLock } = await import('../../src/store/json/lock.js');
      const holder = await readLock(file);
      if (holder)
        throw new CliError(
          `A wcm server (pid ${holder.pid}) is running on ${file}; stop it before importing.`,
          1,
          'Or seed a running server through the API with `wcm seed`.',
        );
    }
    const { importFixtures } = await import('../../src/store/fixtures/seed.js');
    const { FixtureError } = await import('../../src/store/fixtures/import.js');
    const { displayUrl } = await import('../../src/store/open.js');
    // In one transaction (a load with --replace, or into an empty store): nothing is written if a
    // fixture is bad, and every process on a PostgreSQL store keeps reading the old data until it commits.
    const db = await openEngine(f, { data: opts.data, url });
    let counts: Record<string, number>;
    try {
      counts = await importFixtures(db, files, { replace: !!opts.replace });
    } catch (err) {
      if (err instanceof FixtureError) throw new CliError(err.message, 1);
      throw err;
    } finally {
      await db.close();
    }
    if (url)
      f.io.stdout.write(
        `${opts.replace ? 'replaced the data of' : 'imported into'} ${displayUrl(url)}: ${summary(counts)}\n`,
      );
    else if (opts.replace) f.io.stdout.write(`replaced ${file} with ${summary(counts)}\n`);
    else f.io.stdout.write(`imported into ${file}: ${summary(counts)}\n`);
    return 0;
  },
});

function summary(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([k, v]) => `${v} ${k}`);
  return parts.length ? parts.join(', ') : 'nothing (the fixtures are empty)';
}
