import type { ThreadView } from '../../../contract/enums.js';
import type { RecordIndex } from '../../../store/record-repository.js';
import type { WorkspaceRecord } from '../../../store/records.js';
import type { Store } from '../../../store/store.js';
import { html, type Html } from '../../web/html.js';
import { reaches, type SignedIn } from '../../web/signin.js';
import { canRead } from '../access.js';
import { DASHBOARD, grouped, idCode, table, wsHref, type NavEntry, type Section, type View } from '../chrome.js';
import { countAcrossIndex, indexCount } from '../data.js';
import type { WorkspaceRequest } from '../request.js';

/** The workspaces a session reaches: its user's memberships, narrowed to its sign-in token's workspaces. */
export function memberships(
  store: Store,
  signed: Pick<SignedIn, 'user' | 'workspaceIds'>,
): Array<{ record: WorkspaceRecord; role: string }> {
  const out: Array<{ record: WorkspaceRecord; role: string }> = [];
  for (const w of store.values('workspaces')) {
    const m = w.members.find((x) => x.user_id === signed.user.id);
    if (m && reaches(signed, w.id)) out.push({ record: w, role: m.role });
  }
  return out.sort((a, b) => a.record.name.localeCompare(b.record.name) || a.record.id.localeCompare(b.record.id));
}

/** Open threads: the inbox's length (an index partition's length in memory, a count on PostgreSQL). */
const openThreads = (store: Store, w: string) => store.threads.count(w, 'inbox');

/** The side bar of a workspace's pages: the sections the session may read. Counts come from index partitions or small collections only. */
export async function workspaceNav(
  store: Store,
  w: string,
  signed: Pick<SignedIn, 'abilities'>,
  extra: { requestLog: boolean },
): Promise<NavEntry[]> {
  const count = (index: RecordIndex) => () => indexCount(store, index, w);
  const nav: Array<NavEntry & { counting?: () => Promise<number> }> = [
    { section: 'overview', label: 'Overview', href: wsHref(w) },
    { section: 'threads', label: 'Inbox', href: wsHref(w, 'threads'), counting: () => openThreads(store, w) },
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

/** The side bar outside a workspace: the user's workspaces, to pick one. */
export function workspacesNav(
  store: Store,
  signed: Pick<SignedIn, 'user' | 'workspaceIds'>,
  extra: { requestLog: boolean },
): NavEntry[] {
  const nav: NavEntry[] = [{ section: 'workspaces', label: 'All workspaces', href: DASHBOARD }];
  for (const { record } of memberships(store, signed))
    nav.push({ section: 'overview', label: record.name, href: wsHref(record.id) });
  if (extra.requestLog) nav.push({ section: 'requests', label: 'Request log', href: `${DASHBOARD}/requests` });
  return nav;
}

/** `/dashboard`: the workspaces the session reaches; counts only of what its abilities read. */
export async function workspacesView(
  store: Store,
  signed: Pick<SignedIn, 'user' | 'workspaceIds' | 'abilities'>,
): Promise<View> {
  const { user } = signed;
  const mine = memberships(store, signed);
  const threads = canRead(signed, 'threads');
  const lists = canRead(signed, 'lists');
  const open = threads ? await Promise.all(mine.map(({ record: w }) => openThreads(store, w.id))) : [];
  const listings = lists
    ? await Promise.all(mine.map(({ record: w }) => indexCount(store, 'listingsByWorkspace', w.id)))
    : [];
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
  const { store, workspace: w } = r;
  const id = w.id;
  const threads = (view: ThreadView) => store.threads.count(id, view);
  // Each card counts what its section shows: only sections the session may read (counted lazily).
  const cards: Array<[string, () => number | Promise<number>, string, Section]> = [
    ['Open threads', () => threads('inbox'), 'threads', 'threads'],
    ['Unread', () => threads('unread'), 'threads?view=unread', 'threads'],
    ['Starred', () => threads('starred'), 'threads?view=starred', 'threads'],
    ['Closed threads', () => threads('closed'), 'threads?view=closed', 'threads'],
    ['Listings', () => indexCount(store, 'listingsByWorkspace', id), 'lists', 'lists'],
    ['Forms', () => indexCount(store, 'formsByWorkspace', id), 'forms', 'forms'],
    ['Pages', () => indexCount(store, 'pagesByWorkspace', id), 'pages', 'pages'],
    ['Knowledge lists', () => indexCount(store, 'knowledgeListsByWorkspace', id), 'knowledge', 'knowledge'],
    ['Bookings', () => indexCount(store, 'bookingsByWorkspace', id), 'bookings', 'bookings'],
    ['Voice interactions', () => indexCount(store, 'voiceByWorkspace', id), 'voice', 'voice'],
    ['Orders', () => countAcrossIndex(store, 'ordersByCreated', id), 'orders', 'orders'],
    ['Analytics events', () => countAcrossIndex(store, 'eventsByOccurred', id), 'events', 'events'],
  ];
  const shown = cards.filter((c) => canRead(r.signed, c[3]));
  const counts = await Promise.all(shown.map((c) => c[1]()));
  // The member list is workspace data: what `workspaces:read` reads in the API.
  let members: Html | string = '';
  if (r.signed.abilities.includes('workspaces:read')) {
    const rows = w.members.map((m) => {
      const u = store.get('users', m.user_id);
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
