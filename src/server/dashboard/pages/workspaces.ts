import { threadFilterPartition } from '../../../store/indexes.js';
import type { UserRecord, WorkspaceRecord } from '../../../store/records.js';
import type { Store } from '../../../store/store.js';
import { html } from '../../web/html.js';
import { DASHBOARD, grouped, table, wsHref, type NavEntry, type View } from '../chrome.js';
import { countAcrossIndex, indexCount } from '../data.js';
import type { WorkspaceRequest } from '../request.js';

/** The workspaces a user is a member of, with their role (a session's user: no OAuth narrowing). */
export function memberships(store: Store, user: UserRecord): Array<{ record: WorkspaceRecord; role: string }> {
  const out: Array<{ record: WorkspaceRecord; role: string }> = [];
  for (const w of store.values('workspaces')) {
    const m = w.members.find((x) => x.user_id === user.id);
    if (m) out.push({ record: w, role: m.role });
  }
  return out.sort((a, b) => a.record.name.localeCompare(b.record.name) || a.record.id.localeCompare(b.record.id));
}


/** Open threads, from the inbox partition's length: no scan. */
const openThreads = (store: Store, w: string) => indexCount(store, 'threadsByFilter', threadFilterPartition(w, 'inbox', undefined));

/** The side bar of a workspace's pages. Counts come from index partitions or small collections only. */
export function workspaceNav(store: Store, w: string, extra: { requestLog: boolean }): NavEntry[] {
  const nav: NavEntry[] = [
    { section: 'overview', label: 'Overview', href: wsHref(w) },
    { section: 'threads', label: 'Inbox', href: wsHref(w, 'threads'), count: openThreads(store, w) },
    { section: 'lists', label: 'Listings', href: wsHref(w, 'lists'), count: indexCount(store, 'listingsByWorkspace', w) },
    { section: 'forms', label: 'Forms', href: wsHref(w, 'forms'), count: indexCount(store, 'formsByWorkspace', w) },
    { section: 'pages', label: 'Pages', href: wsHref(w, 'pages'), count: indexCount(store, 'pagesByWorkspace', w) },
    { section: 'knowledge', label: 'Knowledge', href: wsHref(w, 'knowledge'), count: indexCount(store, 'knowledgeListsByWorkspace', w) },
    { section: 'bookings', label: 'Bookings', href: wsHref(w, 'bookings'), count: indexCount(store, 'bookingsByWorkspace', w) },
    { section: 'voice', label: 'Voice', href: wsHref(w, 'voice'), count: indexCount(store, 'voiceByWorkspace', w) },
    { section: 'orders', label: 'Orders', href: wsHref(w, 'orders') },
    { section: 'events', label: 'Analytics events', href: wsHref(w, 'events') },
  ];
  nav.push({ section: 'oauth', label: 'OAuth apps', href: wsHref(w, 'oauth') });
  if (extra.requestLog) nav.push({ section: 'requests', label: 'Request log', href: `${DASHBOARD}/requests` });
  return nav;
}

/** The side bar outside a workspace: the user's workspaces, to pick one. */
export function workspacesNav(store: Store, user: UserRecord, extra: { requestLog: boolean }): NavEntry[] {
  const nav: NavEntry[] = [{ section: 'workspaces', label: 'All workspaces', href: DASHBOARD }];
  for (const { record } of memberships(store, user)) nav.push({ section: 'overview', label: record.name, href: wsHref(record.id) });
  if (extra.requestLog) nav.push({ section: 'requests', label: 'Request log', href: `${DASHBOARD}/requests` });
  return nav;
}

/** `/dashboard`: the workspaces the signed-in user belongs to. */
export function workspacesView(store: Store, user: UserRecord): View {
  const mine = memberships(store, user);
  const rows = mine.map(
    ({ record: w, role }) => html`<tr><td><a href="${wsHref(w.id)}">${w.name}</a><span class="sub mono">${w.id}</span></td><td>${role}</td><td class="num">${w.members.length}</td><td class="num">${grouped(openThreads(store, w.id))}</td><td class="num">${grouped(indexCount(store, 'listingsByWorkspace', w.id))}</td></tr>`,
  );
  return {
    title: 'Workspaces',
    section: 'workspaces',
    lead: html`Signed in as ${user.name} (${user.email}). You see the workspaces you are a member of.`,
    body: table(['Workspace', 'Your role', ['Members', 'num'], ['Open threads', 'num'], ['Listings', 'num']], rows, 'You are not a member of any workspace yet.'),
  };
}

/** `/dashboard/workspaces/{w}`: counts of everything, each a link to its page. */
export function overviewView(r: WorkspaceRequest): View {
  const { store, workspace: w } = r;
  const id = w.id;
  const threads = (view: string) => indexCount(store, 'threadsByFilter', threadFilterPartition(id, view, undefined));
  const cards: Array<[string, number, string]> = [
    ['Open threads', threads('inbox'), 'threads'],
    ['Unread', threads('unread'), 'threads?view=unread'],
    ['Starred', threads('starred'), 'threads?view=starred'],
    ['Closed threads', threads('closed'), 'threads?view=closed'],
    ['Listings', indexCount(store, 'listingsByWorkspace', id), 'lists'],
    ['Forms', indexCount(store, 'formsByWorkspace', id), 'forms'],
    ['Pages', indexCount(store, 'pagesByWorkspace', id), 'pages'],
    ['Knowledge lists', indexCount(store, 'knowledgeListsByWorkspace', id), 'knowledge'],
    ['Bookings', indexCount(store, 'bookingsByWorkspace', id), 'bookings'],
    ['Voice interactions', indexCount(store, 'voiceByWorkspace', id), 'voice'],
    ['Orders', countAcrossIndex(store, 'ordersByCreated', id), 'orders'],
    ['Analytics events', countAcrossIndex(store, 'eventsByOccurred', id), 'events'],
  ];
  const members = w.members.map((m) => {
    const u = store.get('users', m.user_id);
    return html`<tr><td>${u?.name ?? m.user_id}</td><td>${u?.email ?? ''}</td><td>${m.role}</td></tr>`;
  });
  return {
    title: w.name,
    section: 'overview',
    lead: html`Workspace <code>${id}</code> · you are ${/^[aeiou]/.test(r.role) ? 'an' : 'a'} ${r.role}`,
    body: html`<div class="cards">${cards.map(([label, n, href]) => html`<a class="card" href="${wsHref(id, href)}"><span class="num">${grouped(n)}</span><span class="label">${label}</span></a>`)}</div>
<h2>Members</h2>
${table(['Name', 'E-mail', 'Role'], members, 'No members.')}`,
  };
}
