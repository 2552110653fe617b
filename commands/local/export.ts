import path from 'node:path';
import { defineCommand } from '../../src/cli/command.js';
import { dataFileOf, dataOption, storeOption, storeUrlOf } from '../../src/cli/local.js';

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
    const store = await f.store({ data: opts.data, readOnly: true, url });
    const file = url ? store.file : dataFileOf(f, opts.data);
    const { exportStore } = await import('../../src/store/fixture.js');
    let text: string;
    try {
      text = JSON.stringify(await exportStore(store), null, 2) + '\n';
    } finally {
      // A PostgreSQL store holds connections open until closed.
      if (url) await store.close();
    }
    const target = opts.args[0];
    if (target === '-') f.io.stdout.write(text);
    else {
      const out = path.resolve(f.cwd, target);
      const { nodeFileLayer } = await import('../../src/store/files.js');
      await nodeFileLayer.writeAtomic(out, text);
      f.io.stderr.write(`exported ${file} to ${out}\n`);
    }
    return 0;
  },
});
