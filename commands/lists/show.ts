import { defineCommand } from '../../src/cli/command.js';
import { printFields, printJson, printRows } from '../../src/cli/output.js';

export default defineCommand({
  path: ['lists', 'show'],
  output: 'getListing',
  summary: 'Show a listing and its items',
  description:
    'On a terminal: the listing, then a table of items. Piped: key<TAB>value lines, then one item<TAB>title<TAB>description line per item.',
  args: [{ name: 'LIST', description: 'listing id (from `wcm lists ls`)', required: true, pick: 'listing' }],
  options: [
    {
      flags: '--web',
      description: "open the listing's dashboard page (its dashboard_url) in your browser instead (piped: print it)",
    },
  ],
  examples: [
    'wcm lists show 249663da-4645-4a27-80da-510adb5532b5',
    'wcm lists show 249663da-4645-4a27-80da-510adb5532b5 --jq ".items[].title"',
    'wcm lists show 249663da-4645-4a27-80da-510adb5532b5 --web',
  ],
  async run(opts, f) {
    const workspace = await f.workspace();
    const client = await f.client();
    const l = (await client.call('getListing', { params: { workspace, list: opts.args[0] } })).body.data;
    if (opts.web) {
      const { openInBrowser } = await import('../../src/cli/browser.js');
      await openInBrowser(l.dashboard_url, (await f.target()).baseUrl, f.io, f.env);
      return 0;
    }
    if (f.globals.json) {
      printJson(f.io.stdout, l);
      return 0;
    }
    await printFields(f.io, [
      ['id', l.id],
      ['title', l.title],
      ['template', l.template_slug],
      ['items', String(l.items.length)],
      ['button', l.button_id],
      ['created_at', l.created_at],
      ['dashboard', l.dashboard_url],
    ]);
    if (!l.items.length) return 0;
    // Piped, each item is one more line, tagged `item` so it cannot be read as a field.
    if (f.io.isStdoutTTY) f.io.stdout.write('\n');
    await printRows(f.io, l.items, [
      ...(f.io.isStdoutTTY ? [] : [{ header: '', value: () => 'item' }]),
      { header: 'ITEM', value: (i) => i.title, maxWidth: 40 },
      {
        header: 'DESCRIPTION',
        value: (i) => i.description ?? '',
        pretty: (i, s) => (i.description === undefined ? s.dim('—') : i.description),
        maxWidth: 70,
      },
    ]);
    return 0;
  },
});
