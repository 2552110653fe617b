import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';
import { printJson, printRows } from '../../../src/cli/output.js';

export default defineCommand({
  path: ['local', 'snapshot', 'ls'],
  output: ['name', 'bytes', 'saved_at'],
  summary: "List the running local server's snapshots",
  description: 'Piped output is tab-separated: name, bytes, saved_at.',
  examples: ['wcm local snapshot ls'],
  async run(_opts, f) {
    const list = await controlRequest<Array<{ name: string; bytes: number; saved_at: string }>>(f, 'GET', '/snapshots');
    if (f.globals.json) return printJson(f.io.stdout, list);
    await printRows(f.io, list, [
      { header: 'NAME', value: (s) => s.name },
      { header: 'BYTES', value: (s) => String(s.bytes) },
      { header: 'SAVED', value: (s) => s.saved_at },
    ]);
  },
});
