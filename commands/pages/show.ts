import { defineCommand } from '../../src/cli/command.js';
import { printJson } from '../../src/cli/output.js';
import { printPage } from '../../src/cli/records.js';

export default defineCommand({
  path: ['pages', 'show'],
  output: 'getPage',
  summary: 'Show a page',
  args: [{ name: 'PAGE', description: 'page id', required: true, pick: 'page' }],
  examples: [
    'wcm pages show 71184361-1989-42ed-9156-e4650146c0d5',
    'wcm pages show 71184361-1989-42ed-9156-e4650146c0d5 --jq .chat',
  ],
  async run(opts, f) {
    const workspace = await f.workspace();
    const client = await f.client();
    const res = await client.call('getPage', { params: { workspace, page: opts.args[0] } });
    if (f.globals.json) printJson(f.io.stdout, res.body.data);
    else await printPage(f, res.body.data);
    return 0;
  },
});
