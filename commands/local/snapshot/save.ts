import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';
import { printJson } from '../../../src/cli/output.js';

export default defineCommand({
  path: ['local', 'snapshot', 'save'],
  summary: "Save the running local server's whole state as a named snapshot (beside its data file)",
  args: [{ name: 'NAME', description: 'letters, digits, `.`, `_`, `-` (up to 64)', required: true }],
  examples: ['wcm local snapshot save before-tests'],
  async run(opts, f) {
    const r = await controlRequest<{ name: string; bytes: number }>(f, 'POST', '/snapshots', { name: opts.args[0] });
    if (f.globals.json) printJson(f.io.stdout, r);
    else
      f.io.stderr.write(
        `Saved snapshot ${r.name} (${r.bytes} bytes): \`wcm local snapshot restore ${r.name}\` goes back to it.\n`,
      );
    return 0;
  },
});
