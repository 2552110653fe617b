import type { ThreadView } from '../../../contract/enums.js';
import type { ReadTx, StoreEngine } from '../../../store/engine/interface.js';
import { threadFilterPartition, type IndexName } from '../../../store/indexes.js';
import type { WorkspaceRecord } from '../../../store/records.js';
import { html, type Html } from '../../web/html.js';
import { reaches, type SignedIn } from '../../web/signin.js';
import { canRead } from '../access.js';
import { DASHBOARD, grouped, idCode, table, wsHref, type NavEntry, type Section, type View } from '../chrome.js';
import { indexCount, recordsById, wholePartition } from '../data.js';
import type { WorkspaceRequest } from '../request.js';

/** One of the workspaces a session reaches, with the user's role in it. */
export interface Membership {
  record: WorkspaceRecord;
  role: string;
}

/** The role of the session's user in workspace `w`, if the session reaches it. */
export function membershipOf(
  w: WorkspaceRecord | undefined,
  signed: Pick<SignedIn, 'user' | 'workspaceIds'>,
): Membership | undefined {
  const m = w?.members.find((x) => x.user_id === signed.user.id);
  return w && m && reaches(signed, w.id) ? { record: w, role: m.role } : undefined;
}

/**
 * The workspaces a session reaches, by name: its user's memberships (the workspaces-by-member
 * index, not every workspace), narrowed to its sign-in token's workspaces.
 */
export async function memberships(tx: ReadTx, signed: Pick<SignedIn, 'user' | 'workspaceIds'>): Promise<Membership[]> {
  const out: Membership[] = [];
  for (const w of await wholePartition(tx, 'workspaces', 'workspacesByMember', signed.user.id)) {
    const m = membershipOf(w, signed);
    if (m) out.push(m);
  }
  return out.sort((a, b) => a.record.name.localeCompare(b.record.name) || a.record.id.localeCompare(b.record.id));
}

/** A workspace's threads in one view (an index partition's length in memory, a count on PostgreSQL). */
const threadCount = (tx: ReadTx, w: string, view: ThreadView) =>
  tx.count('threads', 'threadsByFilter', threadFilterPartition(w, view, undefined));

/** The side bar of a workspace's pages: the sections the session may read. Counts come from index partitions or small collections only. */
export async function workspaceNav(
  tx: ReadTx,
  w: string,
  signed: Pick<SignedIn, 'abilities'>,
  extra: { requestLog: boolean },
): Promise<NavEntry[]> {
  const count = (index: IndexName) => () => indexCount(tx, index, w);
  const nav: Array<NavEntry & { counting?: () => Promise<number> }> = [
    { section: 'overview', label: 'Overview', href: wsHref(w) },
    { section: 'threads', label: 'Inbox', href: wsHref(w, 'threads'), counting: () => threadCount(tx, w, 'inbox') },
    { section: 'lists', label: 'Listings', href: wsHref(w, 'lists'), counting: count('listingsByWorkspace') },
    { section: 'forms', label: 'Forms', href: wsHref(w, 'forms'), counting: count('formsByWorkspace') },
    { section: 'pages', label: 'Pages', href: wsHref(w, 'pages'), counting: count('pagesByWorkspace') },
    {
      section: 'knowledge',
      label: 'Knowledge',
      href: wsHref(w, 'knowledge'),
      counting: count('knowledgeListsByWorkspace'),
    },
    { section: 'bookings', label: 'Bookings', href: wsHref(w, 'bookings'), counting: count('bookingsByWorkspace') },
    { section: 'voice', label: 'Voice', href: wsHref(w, 'voice'), counting: count('voiceByWorkspace') },
    { section: 'orders', label: 'Orders', href: wsHref(w, 'orders') },
    { section: 'events', label: 'Analytics events', href: wsHref(w, 'events') },
  ];
  nav.push({ section: 'oauth', label: 'OAuth apps', href: wsHref(w, 'oauth') });
  if (extra.requestLog) nav.push({ section: 'requests', label: 'Request log', href: `${DASHBOARD}/requests` });
  const shown = nav.filter((n) => canRead(signed, n.section));
  // Only the sections shown are counted, all at once.
  await Promise.all(shown.map(async (n) => n.counting && (n.count = await n.counting())));
  return shown;
}

/** The side bar outside a workspace: the user's workspaces (`memberships`), to pick one. */
export function workspacesNav(mine: readonly Membership[], extra: { requestLog: boolean }): NavEntry[] {
  const nav: NavEntry[] = [{ section: 'workspaces', label: 'All workspaces', href: DASHBOARD }];
  for (const { record } of mine) nav.push({ section: 'overview', label: record.name, href: wsHref(record.id) });
  if (extra.requestLog) nav.push({ section: 'requests', label: 'Request log', href: `${DASHBOARD}/requests` });
  return nav;
}

/** `/dashboard`: the workspaces the session reaches; counts only of what its abilities read. */
export async function workspacesView(
  db: StoreEngine,
  signed: Pick<SignedIn, 'user' | 'workspaceIds' | 'abilities'>,
  mine: readonly Membership[],
): Promise<View> {
  const { user } = signed;
  const threads = canRead(signed, 'threads');
  const lists = canRead(signed, 'lists');
  const [open, listings] = await db.read((tx) =>
    Promise.all([
      threads ? Promise.all(mine.map(({ record: w }) => threadCount(tx, w.id, 'inbox'))) : [],
      lists ? Promise.all(mine.map(({ record: w }) => indexCount(tx, 'listingsByWorkspace', w.id))) : [],
    ]),
  );
  const rows = mine.map(
    ({ record: w, role }, i) =>
      html`<tr><td><a href="${wsHref(w.id)}">${w.name}</a><span class="sub mono">${w.id}</span></td><td>${role}</td><td class="num">${w.members.length}</td>${threads ? html`<td class="num">${grouped(open[i])}</td>` : ''}${lists ? html`<td class="num">${grouped(listings[i])}</td>` : ''}</tr>`,
  );
  const head: Array<string | [string, 'num']> = ['Workspace', 'Your role', ['Members', 'num']];
  if (threads) head.push(['Open threads', 'num']);
  if (lists) head.push(['Listings', 'num']);
  return {
    title: 'Workspaces',
    section: 'workspaces',
    lead: html`Signed in as ${user.name} (${user.email}). You see the workspaces you are a member of${signed.workspaceIds ? ' that the token you signed in with reaches' : ''}.`,
    body: table(head, rows, 'You are not a member of any workspace yet.'),
  };
}

/** `/dashboard/workspaces/{w}`: counts of everything, each a link to its page. */
export async function overviewView(r: WorkspaceRequest): Promise<View> {
  const { workspace: w } = r;
  const id = w.id;
  // Each card counts what its section shows: only sections the session may read (counted lazily).
  const cards: Array<[string, (tx: ReadTx) => Promise<number>, string, Section]> = [
    ['Open threads', (tx) => threadCount(tx, id, 'inbox'), 'threads', 'threads'],
    ['Unread', (tx) => threadCount(tx, id, 'unread'), 'threads?view=unread', 'threads'],
    ['Starred', (tx) => threadCount(tx, id, 'starred'), 'threads?view=starred', 'threads'],
    ['Closed threads', (tx) => threadCount(tx, id, 'closed'), 'threads?view=closed', 'threads'],
    ['Listings', (tx) => indexCount(tx, 'listingsByWorkspace', id), 'lists', 'lists'],
    ['Forms', (tx) => indexCount(tx, 'formsByWorkspace', id), 'forms', 'forms'],
    ['Pages', (tx) => indexCount(tx, 'pagesByWorkspace', id), 'pages', 'pages'],
    ['Knowledge lists', (tx) => indexCount(tx, 'knowledgeListsByWorkspace', id), 'knowledge', 'knowledge'],
    ['Bookings', (tx) => indexCount(tx, 'bookingsByWorkspace', id), 'bookings', 'bookings'],
    ['Voice interactions', (tx) => indexCount(tx, 'voiceByWorkspace', id), 'voice', 'voice'],
    ['Orders', (tx) => indexCount(tx, 'ordersByWorkspace', id), 'orders', 'orders'],
    ['Analytics events', (tx) => indexCount(tx, 'eventsByWorkspace', id), 'events', 'events'],
  ];
  const shown = cards.filter((c) => canRead(r.signed, c[3]));
  // The member list is workspace data: what `workspaces:read` reads in the API.
  const showMembers = r.signed.abilities.includes('workspaces:read');
  const [counts, users] = await r.db.read((tx) =>
    Promise.all([
      Promise.all(shown.map((c) => c[1](tx))),
      showMembers
        ? recordsById(
            tx,
            'users',
            w.members.map((m) => m.user_id),
          )
        : new Map(),
    ]),
  );
  let members: Html | string = '';
  if (showMembers) {
    const rows = w.members.map((m) => {
      const u = users.get(m.user_id);
      return html`<tr><td>${u?.name ?? m.user_id}</td><td>${u?.email ?? ''}</td><td>${m.role}</td></tr>`;
    });
    members = html`<h2>Members</h2>
${table(['Name', 'E-mail', 'Role'], rows, 'No members.')}`;
  }
  return {
    title: w.name,
    section: 'overview',
    lead: html`Workspace ${idCode(id, 'workspace id')} · you are ${/^[aeiou]/.test(r.role) ? 'an' : 'a'} ${r.role}`,
    body: html`<div class="cards">${shown.map(([label, , href], i) => html`<a class="card" href="${wsHref(id, href)}"><span class="num">${grouped(counts[i])}</span><span class="label">${label}</span></a>`)}</div>
${shown.length ? '' : html`<p class="empty">The token you signed in with reads none of this workspace's sections.</p>`}
${members}`,
  };
}
