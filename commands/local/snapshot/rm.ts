import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';

export default defineCommand({
  path: ['local', 'snapshot', 'rm'],
  summary: 'Delete a snapshot of the running local server',
  args: [{ name: 'NAME', description: 'a snapshot name', required: true, complete: 'snapshot' }],
  examples: ['wcm local snapshot rm before-tests'],
  async run(opts, f) {
    await controlRequest(f, 'DELETE', `/snapshots/${encodeURIComponent(opts.args[0])}`);
    f.io.stderr.write(`Deleted snapshot ${opts.args[0]}.\n`);
    return 0;
  },
});
