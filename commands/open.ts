import { openInBrowser, dashboardBase } from '../src/cli/browser.js';
import { defineCommand } from '../src/cli/command.js';
import { CliError, EXIT, UsageError, apiErrorOf } from '../src/cli/errors.js';
import type { Factory } from '../src/cli/factory.js';

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

/**
 * Whether the workspace has a record with this id that the API can show: a listing, thread, form,
 * page, knowledge list or article (orders have no read operation, so an id none of these has is
 * not found). The lookups run together; a 404 from each is "not here", anything else is reported.
 */
async function findRecord(f: Factory, workspace: string, id: string): Promise<boolean> {
  const client = await f.client();
  const found = (p: Promise<unknown>) =>
    p.then(
      () => true,
      (err: unknown) => {
        if (apiErrorOf(err)?.status === 404) return false;
        throw err;
      },
    );
  const articles = (async () => {
    for await (const page of client.pages('listKnowledgeLists', { params: { workspace }, query: { limit: 100 } })) {
      if (page.data.some((l) => l.id === id)) return true;
      const hits = await Promise.all(
        page.data.map((l) => found(client.call('getArticle', { params: { workspace, list: l.id, article: id } }))),
      );
      if (hits.includes(true)) return true;
    }
    return false;
  })();
  const hits = await Promise.all([
    found(client.call('getListing', { params: { workspace, list: id } })),
    found(client.call('getThread', { params: { workspace, thread: id } })),
    found(client.call('getForm', { params: { workspace, form: id } })),
    found(client.call('getPage', { params: { workspace, page: id } })),
    articles,
  ]);
  return hits.includes(true);
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
    const address = dashboardAddress(t.baseUrl, workspace, what);
    // A record id is looked up first, so an id of nothing is exit 5 and opens nothing. Without a
    // token there is nothing to ask with: the dashboard's own sign-in and 404 page then decide.
    if (what !== undefined && address.includes('/open/') && t.token) {
      if (!(await findRecord(f, workspace, what.toLowerCase())))
        throw new CliError(
          `Nothing in workspace ${workspace} has the id ${what.toLowerCase()}: no listing, thread, form, page, knowledge list or article.`,
          EXIT.notFound,
          'Check the id (`wcm threads ls`, `wcm lists ls`, `wcm forms ls`, …). An order has no API read: open `wcm open orders`.',
        );
    }
    await openInBrowser(address, t.baseUrl, f.io, f.env);
    return 0;
  },
});
