import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';
import { printJson } from '../../../src/cli/output.js';

export default defineCommand({
  path: ['local', 'snapshot', 'restore'],
  summary: 'Reset the running local server to a named snapshot (the same as `wcm local reset --to NAME`)',
  args: [
    { name: 'NAME', description: 'a snapshot name (`wcm local snapshot ls`)', required: true, complete: 'snapshot' },
  ],
  examples: ['wcm local snapshot restore before-tests'],
  async run(opts, f) {
    const r = await controlRequest<{ to: string; duration_ms: number }>(f, 'POST', '/reset', { to: opts.args[0] });
    if (f.globals.json) printJson(f.io.stdout, r);
    else f.io.stderr.write(`Restored ${r.to} in ${r.duration_ms} ms.\n`);
    return 0;
  },
});
