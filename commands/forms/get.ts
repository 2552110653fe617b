import { defineCommand } from '../../src/cli/command.js';
import type { Factory } from '../../src/cli/factory.js';
import { printFields, printJson } from '../../src/cli/output.js';
import type { FormField, Form } from '../../src/contract/types.js';
export type { FormField, Form } from '../../src/contract/types.js';

/** `email*` for a required field, `(3 options)` when it has choices. */
const fieldLabel = (x: FormField) => `${x.id}${x.required ? '*' : ''}${x.options ? ` (${x.options.length} options)` : ''}`;

/** One form as key/value lines (object members as compact JSON). */
export async function printForm(f: Factory, form: Form): Promise<void> {
  await printFields(f.io, [
    ['id', form.id],
    ['name', form.name],
    ['fields', form.fields.map(fieldLabel).join(', ') || '—'],
    ['settings', JSON.stringify(form.settings)],
    ['design', JSON.stringify(form.design)],
    ['integrations', JSON.stringify(form.integrations)],
    ['embed', JSON.stringify(form.embed)],
    ['updated_at', form.updated_at ?? '—'],
  ]);
}

export default defineCommand({
  path: ['forms', 'get'],
  summary: 'Show a form (fields marked * are required)',
  args: [{ name: 'FORM', description: 'form id', required: true, pick: 'form' }],
  examples: ['wcm forms get 3f0c…', 'wcm forms get 3f0c… --json | jq .fields'],
  async run(opts, f) {
    const workspace = await f.workspace();
    const client = await f.client();
    const res = await client.call('getForm', { params: { workspace, form: opts.args[0] } });
    if (f.globals.json) printJson(f.io.stdout, res.body.data);
    else await printForm(f, res.body.data);
    return 0;
  },
});
