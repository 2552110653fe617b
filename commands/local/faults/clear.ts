import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';

export default defineCommand({
  path: ['local', 'faults', 'clear'],
  summary: 'Remove every injected fault from the running local server',
  examples: ['wcm local faults clear'],
  async run(_opts, f) {
    await controlRequest(f, 'DELETE', '/faults');
    f.io.stderr.write('No faults.\n');
    return 0;
  },
});
