import { defineCommand } from '../../src/cli/command.js';
import { printJson, printRows } from '../../src/cli/output.js';

interface Row {
  name: string;
  base_url: string;
  workspace: string | null;
  logged_in: boolean;
  current: boolean;
}

export default defineCommand({
  path: ['profile', 'ls'],
  output: ['name', 'base_url', 'workspace', 'logged_in', 'current'],
  summary: 'List the saved profiles; the current one is marked *',
  description:
    'Tokens are never shown: the LOGGED IN column says whether a profile holds one.\n' +
    'Piped output is tab-separated: current (* or empty), name, base URL, workspace, logged in (yes/no).',
  async run(_opts, f) {
    const profiles = await f.profiles();
    const current = profiles.current();
    const rows: Row[] = Object.entries(profiles.list())
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, p]) => ({
        name,
        base_url: p.base_url,
        workspace: p.workspace ?? null,
        logged_in: !!(p.token || p.token_ref),
        current: name === current,
      }));
    if (f.globals.json) {
      printJson(f.io.stdout, rows);
      return 0;
    }
    if (!rows.length) {
      f.io.stderr.write('No profiles yet: run `wcm auth login` (or `wcm serve`, which saves profile `local`).\n');
      return 0;
    }
    await printRows<Row>(f.io, rows, [
      { header: '', value: (r) => (r.current ? '*' : ''), pretty: (r, s) => (r.current ? s.green('*') : ' ') },
      { header: 'NAME', value: (r) => r.name, pretty: (r, s) => (r.current ? s.bold(r.name) : r.name) },
      { header: 'BASE URL', value: (r) => r.base_url },
      { header: 'WORKSPACE', value: (r) => r.workspace ?? '' },
      { header: 'LOGGED IN', value: (r) => (r.logged_in ? 'yes' : 'no') },
    ]);
    return 0;
  },
});
