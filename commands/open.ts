import { openInBrowser, dashboardBase } from '../src/cli/browser.js';
import { defineCommand } from '../src/cli/command.js';
import { UsageError } from '../src/cli/errors.js';

/** Sections of a workspace's dashboard, as `wcm open` accepts them. */
export const DASHBOARD_SECTIONS: Record<string, string> = {
  overview: '',
  inbox: 'threads',
  threads: 'threads',
  lists: 'lists',
  listings: 'lists',
  forms: 'forms',
  pages: 'pages',
  knowledge: 'knowledge',
  bookings: 'bookings',
  voice: 'voice',
  orders: 'orders',
  events: 'events',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The dashboard address for a section name or a record id (the server finds which record it is). */
export function dashboardAddress(baseUrl: string, workspace: string, what: string | undefined): string {
  const ws = `${dashboardBase(baseUrl)}/workspaces/${encodeURIComponent(workspace)}`;
  if (what === undefined) return ws;
  const section = Object.hasOwn(DASHBOARD_SECTIONS, what.toLowerCase())
    ? DASHBOARD_SECTIONS[what.toLowerCase()]
    : undefined;
  if (section !== undefined) return section ? `${ws}/${section}` : ws;
  if (UUID.test(what)) return `${ws}/open/${what.toLowerCase()}`;
  throw new UsageError(
    `\`${what}\` is neither a record id (a UUID) nor a dashboard section.`,
    `Pass the id of a listing, thread, form, page, knowledge list, article or order, or one of: ${Object.keys(DASHBOARD_SECTIONS).join(', ')}.`,
  );
}

export default defineCommand({
  path: ['open'],
  summary: "Open a record's page (or a section) of the dashboard in your browser",
  description:
    'Opens the read-only web dashboard of the server you target, at the record with that id (listing, thread, form, page, knowledge list, article, order) or at a section; with no argument, the workspace overview. Piped, or with BROWSER=none, prints the address instead. Sign in once in the browser (no token goes into the address).',
  args: [
    {
      name: 'TARGET',
      description: `a record id, or a section (${Object.keys(DASHBOARD_SECTIONS).join(', ')})`,
      complete: Object.keys(DASHBOARD_SECTIONS),
    },
  ],
  examples: [
    'wcm open',
    'wcm open inbox',
    'wcm open f7370231-e577-49db-81db-7fa0ec8f8fc9',
    'wcm open $(wcm lists ls --json | jq -r ".[0].id")',
  ],
  async run(opts, f) {
    const [what] = opts.args;
    const t = await f.target();
    const workspace = await f.workspace();
    await openInBrowser(dashboardAddress(t.baseUrl, workspace, what), t.baseUrl, f.io, f.env);
    return 0;
  },
});
