import { CliError } from '../../src/cli/errors.js';
import type { Factory } from '../../src/cli/factory.js';
import { dataFileOf } from '../../src/cli/local.js';

/** Opens a data file read-only (no lock), so it works while `wcm serve` runs on it. */
export async function openDataFile(f: Factory, data: string | undefined) {
  const file = dataFileOf(f, data);
  const { promises: fs } = await import('node:fs');
  if (!(await fs.stat(file).then(() => true, () => false)) && !(await fs.stat(`${file}.journal`).then(() => true, () => false))) {
    throw new CliError(`No data file at ${file}.`, 1, 'Pass `--data FILE`, or run `wcm serve` once to create one.');
  }
  const { Store, StoreCorruptError } = await import('../../src/store/store.js');
  try {
    return await Store.openReadOnly(file);
  } catch (err) {
    if (err instanceof StoreCorruptError) throw new CliError(err.message);
    throw err;
  }
}
