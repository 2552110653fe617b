import { defineCommand } from '../../src/cli/command.js';
import { printJson } from '../../src/cli/output.js';
import { printForm } from '../../src/cli/records.js';

export default defineCommand({
  path: ['forms', 'show'],
  output: 'getForm',
  summary: 'Show a form (fields marked * are required)',
  args: [{ name: 'FORM', description: 'form id', required: true, pick: 'form' }],
  examples: [
    'wcm forms show e5bfd74f-95a3-4f41-b615-83ee8cf45bca',
    'wcm forms show e5bfd74f-95a3-4f41-b615-83ee8cf45bca --json fields',
  ],
  async run(opts, f) {
    const workspace = await f.workspace();
    const client = await f.client();
    const res = await client.call('getForm', { params: { workspace, form: opts.args[0] } });
    if (f.globals.json) printJson(f.io.stdout, res.body.data);
    else await printForm(f, res.body.data);
    return 0;
  },
});
