import { defineCommand } from '../../../src/cli/command.js';
import { controlRequest } from '../../../src/cli/control.js';

export default defineCommand({
  path: ['local', 'clock', 'clear'],
  summary: "Put the running local server's clock back to real time",
  examples: ['wcm local clock clear'],
  async run(_opts, f) {
    const r = await controlRequest<{ now: string }>(f, 'DELETE', '/clock');
    f.io.stderr.write(`The clock reads real time again (${r.now}).\n`);
    return 0;
  },
});
