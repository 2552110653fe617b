/*
 * What the API answers, as store fixture records (docs/cli.md: `wcm pull`). A record read with its
 * get operation is copied whole; one the target lists but cannot get is made from its list entry,
 * with what the list does not show filled in so that the list answers the same.
 */
import type { Scrubber } from './scrub.js';
import { madeId } from '../store/records.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- records as the target answered them, checked by the fixture reader */
type Item = any;

/** A time `i` seconds before 2000-01-01, so records made in list order list in that order (newest first). */
const madeTime = (i: number) => new Date(Date.UTC(2000, 0, 1) - i * 1000).toISOString();

const PAGE_MEMBERS = [
  'name',
  'slug',
  'published',
  'template',
  'display_name',
  'bio',
  'seo_title',
  'seo_description',
  'aeo_summary',
  'agent_instructions',
  'schema_type',
  'chat',
  'robots_index',
  'llms_enabled',
  'updated_at',
];

export const toRecord = {
  listing(ws: string, l: Item, full: boolean, i: number, s?: Scrubber) {
    const r = full
      ? {
          id: l.id,
          workspace_id: ws,
          title: l.title,
          template_slug: l.template_slug,
          items: l.items,
          button_id: l.button_id ?? null,
          created_at: l.created_at,
        }
      : {
          id: l.id,
          workspace_id: ws,
          title: l.title,
          template_slug: 'links',
          items: [],
          button_id: null,
          created_at: madeTime(i),
        };
    return s ? { ...r, title: s.text(r.title), items: s.deep(r.items) } : r;
  },
  form(ws: string, f: Item, full: boolean, s?: Scrubber) {
    const r = full
      ? {
          id: f.id,
          workspace_id: ws,
          name: f.name,
          fields: f.fields,
          settings: f.settings,
          design: f.design,
          integrations: f.integrations,
          embed: f.embed,
          updated_at: f.updated_at,
        }
      : {
          id: f.id,
          workspace_id: ws,
          name: f.name,
          fields: Array.from({ length: f.field_count ?? 0 }, (_, k) => ({
            id: `field_${k + 1}`,
            label: `Field ${k + 1}`,
            required: false,
          })),
          updated_at: f.updated_at ?? null,
        };
    return s ? { ...s.deep(r), id: r.id, workspace_id: ws } : r;
  },
  page(ws: string, p: Item, full: boolean, s?: Scrubber) {
    const r = full
      ? Object.fromEntries([
          ['id', p.id],
          ['workspace_id', ws],
          ...PAGE_MEMBERS.filter((k) => k in p).map((k) => [k, p[k]]),
        ])
      : { id: p.id, workspace_id: ws, name: p.name, slug: p.slug, published: p.published, updated_at: p.updated_at };
    return s ? s.deep(r) : r;
  },
  knowledgeList(ws: string, l: { id: string; name: string }, s?: Scrubber) {
    return { id: l.id, workspace_id: ws, name: s ? s.text(l.name) : l.name };
  },
  article(list: string, a: Item, full: boolean, i: number, s?: Scrubber) {
    const versions = full
      ? a.versions.map((v: Item) => ({
          id: v.id,
          number: v.number,
          title: v.title,
          body: v.body,
          published: v.published,
          restored_from: v.restored_from ?? null,
          created_at: v.created_at,
        }))
      : Array.from({ length: Math.max(1, a.current_version ?? 1) }, (_, k) => {
          const number = k + 1;
          const current = number === Math.max(1, a.current_version ?? 1);
          return {
            id: madeId(`${a.id}:v${number}`),
            number,
            title: a.title,
            body: '',
            published: number === a.published_version,
            restored_from: null,
            created_at: current ? a.updated_at : madeTime(i),
          };
        });
    return {
      id: a.id,
      list_id: list,
      versions: s ? versions.map((v: Item) => ({ ...v, title: s.text(v.title), body: s.text(v.body) })) : versions,
    };
  },
  thread(ws: string, t: Item, full: boolean, s?: Scrubber) {
    const messages = full
      ? t.messages.map((m: Item) => ({
          id: m.id,
          channel: m.channel,
          direction: m.direction,
          body: m.body,
          created_at: m.created_at,
        }))
      : madeMessages(t);
    const c = t.contact ?? {};
    let contact = { id: c.id, name: c.name ?? null, email: c.email ?? null, phone: c.phone ?? null };
    if (s) {
      const who = s.person(s.contactKey(c.email, `contact:${c.id}`));
      contact = {
        id: c.id,
        name: c.name == null ? null : who.name,
        email: c.email == null ? null : who.email,
        phone: c.phone == null ? null : s.phone(c.phone),
      };
      for (const m of messages) m.body = s.body(m.body, m.id);
    }
    return {
      id: t.id,
      workspace_id: ws,
      subject: s && t.subject != null ? s.text(t.subject) : (t.subject ?? null),
      status: t.status,
      unread: t.unread,
      starred: t.starred,
      contact,
      messages,
    };
  },
  booking(ws: string, b: Item, s?: Scrubber) {
    let contact = { name: b.contact?.name ?? null, email: b.contact?.email ?? null };
    if (s) {
      const who = s.person(s.contactKey(contact.email, `name:${contact.name ?? b.id}`));
      contact = { name: contact.name == null ? null : who.name, email: contact.email == null ? null : who.email };
    }
    return {
      id: b.id,
      workspace_id: ws,
      status: b.status,
      booking_type: { id: b.booking_type.id, name: s ? s.text(b.booking_type.name) : b.booking_type.name },
      contact,
      starts_at: b.starts_at,
      ends_at: b.ends_at,
      timezone: b.timezone,
    };
  },
  voice(ws: string, v: Item, s?: Scrubber) {
    return {
      id: v.id,
      workspace_id: ws,
      kind: v.kind,
      from: s ? s.phone(v.from) : v.from,
      to: s ? s.phone(v.to) : v.to,
      status: v.status,
      started_at: v.started_at,
      duration_seconds: v.duration_seconds,
      transcript: s && v.transcript != null ? s.body(v.transcript, v.id) : (v.transcript ?? null),
    };
  },
  offer(ws: string, o: Item, s?: Scrubber) {
    return {
      id: o.id,
      workspace_id: ws,
      kind: o.kind,
      title: s ? s.text(o.title) : o.title,
      currency: o.currency,
      unit_amount_minor: o.unit_amount_minor ?? null,
      active: o.active,
    };
  },
  agent(ws: string, a: Item, s?: Scrubber) {
    return { id: a.id, workspace_id: ws, name: s ? s.text(a.name) : a.name };
  },
};

/**
 * A thread's messages when the target lists threads but cannot get one: as many as it counts, on
 * its channels, the last one its preview at its time; the others say they could not be read.
 */
function madeMessages(t: Item) {
  const n: number = t.message_count ?? 0;
  const channels: string[] = t.channels?.length ? t.channels : ['web_chat'];
  const last = t.last_message_at ? Date.parse(t.last_message_at) : Date.UTC(2000, 0, 1);
  return Array.from({ length: n }, (_, k) => ({
    id: madeId(`${t.id}:m${k}`),
    channel: channels[k < channels.length ? k : channels.length - 1],
    direction: 'inbound',
    body: k === n - 1 ? (t.last_message_preview ?? '') : '(not copied: this server cannot show a thread)',
    created_at: new Date(last - (n - 1 - k) * 1000).toISOString(),
  }));
}
