import { defineCommand } from '../../src/cli/command.js';
import { CliError, UsageError } from '../../src/cli/errors.js';
import { printFields, printJson } from '../../src/cli/output.js';
import { readJsonFile } from '../../src/cli/body-file.js';

interface CreateOptions {
  title?: string;
  template?: string;
  item?: string[];
  itemsFile?: string;
}

interface Item {
  title: string;
  description?: string;
}

/** `"Title"` or `"Title: description"` (the first `: ` splits). */
export function parseItem(raw: string): Item {
  const i = raw.indexOf(': ');
  if (i === -1) return { title: raw.trim() };
  return { title: raw.slice(0, i).trim(), description: raw.slice(i + 2).trim() };
}

export default defineCommand<CreateOptions>({
  path: ['lists', 'create'],
  output: 'createListing',
  summary: 'Create an unattached listing from a template',
  examples: [
    'wcm lists create --title "FAQ" --template faq --item "Hours?: 8 to 6" --item "Parking?"',
    'wcm lists create --title Menu --template menu --items-file items.json',
    "jq '.items' export.json | wcm lists create --title Menu --template menu --items-file -",
  ],
  options: [
    { flags: '--title <title>', description: 'listing title (max 255)' },
    { flags: '--template <slug>', description: 'template slug (see `wcm lists templates`)', complete: 'template' },
    { flags: '--item <item>', description: '"Title" or "Title: description" (repeatable, max 50)', repeatable: true },
    { flags: '--items-file <file>', description: 'JSON array of {title, description} items; - reads stdin' },
  ],
  async run(opts, f) {
    const workspace = await f.workspace();
    const items: Item[] = (opts.item ?? []).map(parseItem);
    if (opts.itemsFile) {
      const parsed = await readJsonFile(f, '--items-file', opts.itemsFile);
      if (!Array.isArray(parsed))
        throw new UsageError('`--items-file` must hold a JSON array of {"title", "description"} objects.');
      items.push(...(parsed as Item[]));
    }
    let { title, template } = opts;
    if (!title || !template) {
      if (!f.io.canPrompt()) {
        const missing = [!title && '--title', !template && '--template'].filter(Boolean).join(' and ');
        throw new UsageError(`Missing ${missing}.`, 'Example: wcm lists create --title "FAQ" --template faq');
      }
      const client = await f.client();
      const p = await f.io.prompter();
      title ??= (
        await p.input({ message: 'Title', validate: (v) => (v.trim() ? true : 'A title is required') })
      ).trim();
      if (!template) {
        const res = await client.call('listListingTemplates', { query: { limit: 100 } });
        template = await p.select({
          message: 'Template',
          choices: res.body.data.map((t) => ({
            name: `${t.name} (${t.slug})`,
            value: t.slug,
            description: t.description,
          })),
        });
      }
      if (!opts.item && !opts.itemsFile) {
        while (
          items.length < 50 &&
          (await p.confirm({
            message: items.length ? 'Add another item?' : 'Add an item?',
            default: items.length === 0,
          }))
        ) {
          const itemTitle = (
            await p.input({ message: 'Item title', validate: (v) => (v.trim() ? true : 'An item needs a title') })
          ).trim();
          const description = (await p.input({ message: 'Description (optional)' })).trim();
          items.push(description ? { title: itemTitle, description } : { title: itemTitle });
        }
      }
    }
    const client = await f.client();
    const res = await client.call('createListing', {
      params: { workspace },
      body: { title, template_slug: template, items },
    });
    const l = res.body.data;
    if (!l) throw new CliError('The server answered without a listing.');
    if (f.globals.json) printJson(f.io.stdout, l);
    else
      await printFields(f.io, [
        ['id', l.id],
        ['title', l.title],
        ['template', l.template_slug],
        ['items', String(l.items.length)],
        ['dashboard', l.dashboard_url],
      ]);
    return 0;
  },
});
