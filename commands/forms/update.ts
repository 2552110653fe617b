import { defineCommand } from '../../src/cli/command.js';
import { UsageError } from '../../src/cli/errors.js';
import { printJson } from '../../src/cli/output.js';
import { oneStdinReader, readBodyFile, readJsonFile } from '../../src/cli/body-file.js';
import { applySet, withSetHints } from '../../src/cli/set-flag.js';
import { printForm } from '../../src/cli/records.js';

interface UpdateOptions {
  name?: string;
  fieldsFile?: string;
  set?: string[];
  file?: string;
}

export default defineCommand<UpdateOptions>({
  path: ['forms', 'update'],
  output: 'updateForm',
  summary: 'Update a form: members sent replace, object members merge (JSON Merge Patch)',
  description:
    'Members not sent stay as they are. `settings`, `design`, `integrations` and `embed` from --file merge key by key:\n' +
    'a key set to null is removed, a key left out stays. --fields-file replaces the whole field list.\n' +
    '--set takes dotted keys into objects, with values typed as `wcm api -F` types them (docs/cli.md, "Typed\n' +
    'values"). --file and --fields-file take - for standard input. Order of precedence: --file, then\n' +
    '--set, then --fields-file and --name.',
  args: [{ name: 'FORM', description: 'form id', required: true, pick: 'form' }],
  examples: [
    'wcm forms update e5bfd74f-95a3-4f41-b615-83ee8cf45bca --name "Catering request"',
    'wcm forms update e5bfd74f-95a3-4f41-b615-83ee8cf45bca --fields-file fields.json',
    'wcm forms update e5bfd74f-95a3-4f41-b615-83ee8cf45bca --set settings.notify_email=null --set design.theme=dark',
    'wcm forms update e5bfd74f-95a3-4f41-b615-83ee8cf45bca --file patch.json   # {"settings": {"notify_email": null}}',
    "jq '.fields' form.json | wcm forms update e5bfd74f-95a3-4f41-b615-83ee8cf45bca --fields-file -",
  ],
  options: [
    { flags: '--name <name>', description: 'new form name (max 255)' },
    {
      flags: '--fields-file <file>',
      description:
        'JSON array of fields {id, label, required, options} (or {"fields": [...]}); replaces them all; - reads stdin',
    },
    {
      flags: '--set <key=value>',
      description: 'set a member; dotted keys reach into objects, e.g. settings.notify_email=null (repeatable)',
      repeatable: true,
    },
    {
      flags: '--file <file>',
      description: 'JSON object: the request body (- reads stdin); the other flags override its members',
    },
  ],
  async run(opts, f) {
    const [form] = opts.args;
    const workspace = await f.workspace();
    const sets = opts.set ?? [];
    const { readsStdin, readStdinText } = await import('../../src/cli/fields.js');
    oneStdinReader([
      opts.file === '-' && '--file -',
      opts.fieldsFile === '-' && '--fields-file -',
      readsStdin(sets) && '--set …=@-',
    ]);
    const body: Record<string, unknown> = opts.file ? await readBodyFile(f, opts.file) : {};
    const stdin = readsStdin(sets) ? await readStdinText(f.io, '--set') : undefined;
    for (const s of sets) applySet(body, s, { cwd: f.cwd, stdin });
    if (opts.fieldsFile) {
      const raw = await readJsonFile(f, '--fields-file', opts.fieldsFile);
      const fields = Array.isArray(raw) ? raw : (raw as { fields?: unknown } | null)?.fields;
      if (!Array.isArray(fields))
        throw new UsageError(
          '`--fields-file` must hold a JSON array of fields, e.g. [{"id": "email", "label": "Email", "required": true}].',
        );
      body.fields = fields;
    }
    if (opts.name !== undefined) body.name = opts.name;
    if (!opts.file && !Object.keys(body).length) {
      throw new UsageError(
        'Nothing to change.',
        'Pass --name, --fields-file, --set key=value or --file BODY.json, e.g. `wcm forms update FORM --name "Contact"`.',
      );
    }
    const client = await f.client();
    const res = await client.call('updateForm', { params: { workspace, form }, body }).catch((err: unknown) => {
      throw withSetHints(err, opts.set ?? []);
    });
    if (f.globals.json) printJson(f.io.stdout, res.body.data);
    else await printForm(f, res.body.data);
    return 0;
  },
});
