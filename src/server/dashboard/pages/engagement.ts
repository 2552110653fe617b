import { BOOKING_STATUSES, CHANNELS, THREAD_VIEWS, VOICE_KINDS, type Channel } from '../../../contract/enums.js';
import { html, type Html } from '../../web/html.js';
import {
  badge,
  facts,
  grouped,
  idCode,
  pager,
  seg,
  shortWhen,
  table,
  tabs,
  when,
  wsHref,
  type View,
} from '../chrome.js';
import { callOperation, listPage, recordsById, type Row } from '../data.js';
import { param, type WorkspaceRequest } from '../request.js';
import type { ReadTx } from '../../../store/engine/interface.js';
import { threadContactPartitions, threadFilterPartition } from '../../../store/indexes.js';
import type { ThreadRecord } from '../../../store/records.js';
import { compareKeys } from '../../../store/sorted-index.js';

const CHANNEL_LABELS: Record<Channel, string> = {
  web_chat: 'Web chat',
  email: 'Email',
  whatsapp: 'WhatsApp',
  form: 'Form',
};
const VIEW_LABELS: Record<(typeof THREAD_VIEWS)[number], string> = {
  inbox: 'Inbox',
  unread: 'Unread',
  starred: 'Starred',
  closed: 'Closed',
};
const channelLabel = (c: string) => CHANNEL_LABELS[c as Channel] ?? c;

/** `…/threads`: the inbox with the API's views, channel filter and search (listThreads). */
export async function threadsView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const view = param(r.query, 'view') ?? 'inbox';
  const channel = param(r.query, 'channel');
  const q = param(r.query, 'q');
  const cursor = param(r.query, 'cursor');
  const page = await listPage(r, 'listThreads', { workspace: w }, { view, channel, q, cursor });
  const base = wsHref(w, 'threads');
  const counts = await r.db.read((tx) =>
    Promise.all(THREAD_VIEWS.map((v) => tx.count('threads', 'threadsByFilter', threadFilterPartition(w, v, channel)))),
  );
  const views = THREAD_VIEWS.map((v, i): [string, string] => [v, `${VIEW_LABELS[v]} ${grouped(counts[i])}`]);
  const filters = html`<form class="filters" method="get" action="${base}" role="search">
<input type="hidden" name="view" value="${view}">
<label class="visually-hidden" for="channel">Channel</label>
<select id="channel" name="channel"><option value="">All channels</option>${CHANNELS.map((c) => html`<option value="${c}"${c === channel ? html` selected` : ''}>${CHANNEL_LABELS[c]}</option>`)}</select>
<label class="visually-hidden" for="q">Search</label>
<input type="search" id="q" name="q" value="${q ?? ''}" maxlength="200" placeholder="Contact, subject or last message">
<button type="submit" class="secondary">Filter</button>
</form>`;
  // The short date in a row depends on today's date: part of the variant its cached HTML is for.
  const rows = page.rows(`${w}|${r.now.toISOString().slice(0, 10)}`, (t) => threadRow(t, r.now));
  const empty = q ? 'No thread matches this search.' : 'No threads here.';
  return {
    title: 'Inbox',
    section: 'threads',
    rows,
    crumbs: [[r.workspace.name, wsHref(w)]],
    lead: 'Newest activity first. Search matches contact name, e-mail, subject and the last message.',
    body: html`<div class="toolbar">${tabs(base, 'view', views, view, { channel, q })}${filters}</div>
${table(['Contact', 'Conversation', 'Channels', 'Status', ['Messages', 'num'], 'Last'], rows, empty, 'inbox')}
${pager(base, { view: view === 'inbox' ? undefined : view, channel, q }, page.next_cursor, rows.count, !!cursor)}`,
  };
}

/**
 * One inbox row. Kept small (this is the page of the 100,000-thread inbox that must stay within 2×
 * the API's time): the link is relative to the inbox (`threads/ID`), cells take their layout from
 * the table's class instead of their own, an open thread carries no status pill (only closed ones
 * do), and the time's full value is in `datetime` only.
 */
function threadRow(t: Row, now: Date): Html {
  const who = t.contact.name ?? t.contact.email ?? t.contact.phone ?? 'Unknown contact';
  const sub = t.contact.name ? (t.contact.email ?? t.contact.phone) : null;
  return html`<tr${t.unread ? html` class="unread"` : ''}><td>${who}${sub ? html`<small>${sub}</small>` : ''}</td><td><a href="threads/${seg(t.id)}">${t.subject ?? '(no subject)'}</a>${t.last_message_preview ? html`<small>${t.last_message_preview}</small>` : ''}</td><td>${(t.channels as string[]).map(channelLabel).join(', ')}</td><td>${t.status === 'closed' ? html`${badge('closed')} ` : ''}${t.unread ? html`${badge('unread', 'warn')} ` : ''}${t.starred ? html`<span class="star" title="Starred" aria-label="Starred">&#9733;</span>` : ''}</td><td>${t.message_count}</td><td>${shortWhen(t.last_message_at, now)}</td></tr>`;
}

/** `…/threads/{id}`: one conversation, oldest message first (getThread). */
export async function threadView(r: WorkspaceRequest, id: string): Promise<View> {
  const w = r.workspace.id;
  const t = (await callOperation(r, 'getThread', { workspace: w, thread: id })) as Row;
  const contactName = t.contact.name ?? t.contact.email ?? t.contact.phone ?? 'Contact';
  const messages = (t.messages as Row[]).map(
    (m) =>
      html`<article class="msg ${m.direction === 'outbound' ? 'outbound' : 'inbound'}"><div class="meta">${m.direction === 'outbound' ? r.workspace.name : contactName} · ${channelLabel(m.channel)} · ${when(m.created_at)}</div><div class="bubble">${m.body}</div></article>`,
  );
  return {
    title: t.subject ?? '(no subject)',
    section: 'threads',
    crumbs: [
      [r.workspace.name, wsHref(w)],
      ['Inbox', wsHref(w, 'threads')],
    ],
    lead: html`${t.status === 'open' ? badge('open', 'info') : badge('closed')} ${t.unread ? badge('unread', 'warn') : ''} ${t.starred ? badge('starred') : ''} ${t.message_count} message${t.message_count === 1 ? '' : 's'}`,
    body: html`<div class="split"><section aria-labelledby="conversation"><h2 id="conversation" class="visually-hidden">Conversation</h2>
<div class="conversation">${messages.length ? messages : html`<p class="muted">No messages.</p>`}</div></section>
<aside><section class="panel" aria-label="Contact">${facts([
      ['Contact', contactName],
      ['E-mail', t.contact.email],
      ['Phone', t.contact.phone],
      ['Channels', (t.channels as string[]).map(channelLabel).join(', ')],
      ['Last message', when(t.last_message_at)],
      ['Thread id', idCode(t.id, 'thread id')],
    ])}</section>${await sameContact(r, t)}</aside></div>`,
  };
}

/** How many of each kind the side panel lists (the newest). */
const RELATED_MAX = 10;
/** What the panel reads when the thread's contact has no e-mail address. */
const NONE = { items: [], last: null, more: false } as const;

/**
 * A workspace's threads of this contact but `except`: same contact id, or same e-mail address
 * (any case), newest activity first, then by id; at most RELATED_MAX.
 */
async function threadsOfContact(
  tx: ReadTx,
  w: string,
  contact: { id: string; email: string | null },
  except: string,
): Promise<ThreadRecord[]> {
  const pages = await Promise.all(
    threadContactPartitions(w, contact).map((partition) =>
      tx.page('threads', 'threadsByContact', { partition, limit: RELATED_MAX, filter: (x) => x.id !== except }),
    ),
  );
  const byId = new Map<string, ThreadRecord>();
  for (const p of pages) for (const x of p.items) byId.set(x.id, x);
  const key = (x: ThreadRecord) => [x.last_message_at, x.id];
  return [...byId.values()].sort((a, b) => compareKeys(key(b), key(a))).slice(0, RELATED_MAX);
}

/**
 * The contact's other threads, bookings and orders in this workspace: same contact id, or the
 * same e-mail address (bookings and orders know a contact by e-mail only), newest first, at most
 * RELATED_MAX of each. Threads come from their by-contact index; bookings and orders are the
 * workspace's, read in order until enough match.
 */
async function sameContact(r: WorkspaceRequest, t: Row): Promise<Html> {
  const w = r.workspace.id;
  const email = (t.contact.email as string | null)?.toLowerCase();
  const sameEmail = (e: string | null | undefined) => !!email && e?.toLowerCase() === email;
  const { threads, bookings, orders, offers } = await r.db.read(async (tx) => {
    const [threads, bookings, orders] = await Promise.all([
      threadsOfContact(tx, w, t.contact, t.id),
      email
        ? tx.page('bookings', 'bookingsByWorkspace', {
            partition: w,
            limit: RELATED_MAX,
            filter: (b) => sameEmail(b.contact.email),
          })
        : NONE,
      email
        ? tx.page('orders', 'ordersByWorkspace', {
            partition: w,
            limit: RELATED_MAX,
            filter: (o) => sameEmail(o.customer_email),
          })
        : NONE,
    ]);
    const offers = await recordsById(
      tx,
      'offers',
      orders.items.map((o) => o.offer_id),
    );
    return { threads, bookings, orders, offers };
  });
  const list = (items: Html[]) => (items.length ? html`<ul>${items}</ul>` : html`<p class="muted small">None.</p>`);
  return html`<section class="panel related" id="related" aria-labelledby="related-head"><h2 id="related-head" class="visually-hidden">Same contact</h2>
<h3>Other threads</h3>${list(threads.map((x) => html`<li><a href="${wsHref(w, `threads/${seg(x.id)}`)}">${x.subject ?? '(no subject)'}</a><span class="sub">${x.status} · ${when(x.last_message_at)}</span></li>`))}
<h3>Bookings</h3>${list(bookings.items.map((b) => html`<li>${b.booking_type.name}<span class="sub">${badge(b.status, BOOKING_TONES[b.status] ?? '')} ${when(b.starts_at)}</span></li>`))}${bookings.items.length ? html`<p class="small"><a href="${wsHref(w, 'bookings')}">All bookings</a></p>` : ''}
<h3>Orders</h3>${list(orders.items.map((o) => html`<li><a href="${wsHref(w, `open/${seg(o.id)}`)}">${offers.get(o.offer_id)?.title ?? 'Order'}</a><span class="sub">${o.payment_state} · ${when(o.created_at)}</span></li>`))}</section>`;
}

/** One formatter per time zone (they are costly to build). Null for a zone this runtime does not know. */
const zoneFormats = new Map<string, { day: Intl.DateTimeFormat; time: Intl.DateTimeFormat } | null>();
function zoneFormat(timeZone: string) {
  if (!zoneFormats.has(timeZone)) {
    try {
      zoneFormats.set(timeZone, {
        day: new Intl.DateTimeFormat('en-GB', {
          timeZone,
          weekday: 'short',
          day: 'numeric',
          month: 'short',
          year: 'numeric',
        }),
        time: new Intl.DateTimeFormat('en-GB', {
          timeZone,
          hour: '2-digit',
          minute: '2-digit',
          hourCycle: 'h23',
          timeZoneName: 'short',
        }),
      });
    } catch {
      zoneFormats.set(timeZone, null);
    }
  }
  return zoneFormats.get(timeZone)!;
}

/** A booking's time as its guests see it: in the booking's own time zone, with UTC beside it. */
function bookingTime(b: Row): Html {
  const f = zoneFormat(b.timezone);
  const start = new Date(b.starts_at);
  const end = new Date(b.ends_at);
  if (!f || Number.isNaN(start.getTime())) return html`${when(b.starts_at)}<span class="sub">${b.timezone}</span>`;
  const sameDay = f.day.format(start) === f.day.format(end);
  const endText = sameDay ? f.time.format(end) : `${f.day.format(end)}, ${f.time.format(end)}`;
  return html`<time class="zoned" datetime="${b.starts_at}">${f.day.format(start)}, ${f.time.format(start).replace(/ \S+$/, '')}</time>&ndash;${endText}<span class="sub">${b.timezone} · starts ${when(b.starts_at)}</span>`;
}

const BOOKING_TONES: Record<string, 'ok' | 'warn' | 'bad'> = { confirmed: 'ok', pending: 'warn', cancelled: 'bad' };

/** `…/bookings`: by start time, each in its own time zone (listBookings). */
export async function bookingsView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const status = param(r.query, 'status');
  const cursor = param(r.query, 'cursor');
  const page = await listPage(r, 'listBookings', { workspace: w }, { status, cursor });
  const base = wsHref(w, 'bookings');
  const rows = page.rows(
    w,
    (b) =>
      html`<tr><td>${bookingTime(b)}</td><td>${b.booking_type.name}</td><td>${b.contact.name ?? ''}${b.contact.email ? html`<span class="sub">${b.contact.email}</span>` : ''}</td><td>${badge(b.status, BOOKING_TONES[b.status] ?? '')}</td></tr>`,
  );
  return {
    title: 'Bookings',
    section: 'bookings',
    rows,
    crumbs: [[r.workspace.name, wsHref(w)]],
    lead: "By start time, shown in each booking's own time zone.",
    body: html`<div class="toolbar">${tabs(base, 'status', [[undefined, 'All'], ...BOOKING_STATUSES.map((s): [string, string] => [s, s[0].toUpperCase() + s.slice(1)])], status, {})}</div>
${table(['When', 'Type', 'Contact', 'Status'], rows, 'No bookings.')}
${pager(base, { status }, page.next_cursor, rows.count, !!cursor)}`,
  };
}

/** A transcript in the list: whole when short, else its start with the rest behind a disclosure. */
function transcript(text: string | null): Html {
  if (!text) return html`<span class="muted">no transcript</span>`;
  if (text.length <= 240) return html`<span class="prose">${text}</span>`;
  return html`<details><summary>${Array.from(text).slice(0, 110).join('').trimEnd()}&hellip;</summary><div class="prose">${text}</div></details>`;
}

const duration = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
const VOICE_TONES: Record<string, 'ok' | 'warn' | 'bad'> = { answered: 'ok', voicemail: 'warn', missed: 'bad' };

/** `…/voice`: calls and voice messages, newest first, with transcripts (listVoiceInteractions). */
export async function voiceView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const kind = param(r.query, 'kind');
  const cursor = param(r.query, 'cursor');
  const page = await listPage(r, 'listVoiceInteractions', { workspace: w }, { kind, cursor });
  const base = wsHref(w, 'voice');
  const rows = page.rows(
    w,
    (v) =>
      html`<tr><td class="nowrap">${when(v.started_at)}</td><td>${v.kind === 'call' ? 'Call' : 'Voice message'}</td><td class="nowrap">${v.from}<span class="sub">to ${v.to}</span></td><td>${badge(v.status, VOICE_TONES[v.status] ?? '')}</td><td class="num">${duration(v.duration_seconds)}</td><td class="small">${transcript(v.transcript)}</td></tr>`,
  );
  return {
    title: 'Voice interactions',
    section: 'voice',
    rows,
    crumbs: [[r.workspace.name, wsHref(w)]],
    body: html`<div class="toolbar">${tabs(base, 'kind', [[undefined, 'All'], ...VOICE_KINDS.map((k): [string, string] => [k, k === 'call' ? 'Calls' : 'Voice messages'])], kind, {})}</div>
${table(['Started', 'Kind', 'From', 'Status', ['Duration', 'num'], 'Transcript'], rows, 'No voice interactions.', 'voice')}
${pager(base, { kind }, page.next_cursor, rows.count, !!cursor)}`,
  };
}
