import { z } from 'zod';
import { CHANNELS } from '../contract/enums.js';
import type { MessageRecord } from './records.js';
import type { FullThread } from './threads.js';

/*
 * A fixture's thread checked by hand in the common case: every member present or absent, of its
 * type, ids and timestamps as exports write them. What it takes, the thread schema
 * (fixture-schema.ts) takes too and turns into the same record, member order included
 * (test/store/fixture-fast.test.ts compares the two); anything else goes to the schema, which
 * gives the messages. The schema's generic walk was a fifth of a 100,000-thread `--seed`.
 */

const UUID = z.regexes.uuid();
const DATETIME = z.regexes.datetime({ offset: true });
/** What tsOut (schemas.ts) keeps as it is. */
const CANONICAL_TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const THREAD_KEYS = new Set(['id', 'workspace_id', 'subject', 'status', 'unread', 'starred', 'contact', 'messages']);
const CONTACT_KEYS = new Set(['id', 'name', 'email', 'phone']);
const MESSAGE_KEYS = new Set(['id', 'channel', 'direction', 'body', 'created_at']);
const CHANNEL_SET = new Set<unknown>(CHANNELS);

/** Thrown inside, caught at the top: the value is not plainly valid. */
const NOT_PLAIN = Symbol('not plain');
type Obj = Record<string, unknown>;

function obj(v: unknown, keys: ReadonlySet<string>): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw NOT_PLAIN;
  for (const k in v) if (!keys.has(k)) throw NOT_PLAIN;
  return v as Obj;
}
function uuid(v: unknown): string {
  if (typeof v !== 'string' || !UUID.test(v)) throw NOT_PLAIN;
  return v;
}
/** `z.string().nullable().default(null)`. */
function text(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw NOT_PLAIN;
  return v;
}
/** `z.boolean().default(false)`. */
function flag(v: unknown): boolean {
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw NOT_PLAIN;
  return v;
}
function oneOf<T>(v: unknown, set: ReadonlySet<unknown>): T {
  if (!set.has(v)) throw NOT_PLAIN;
  return v as T;
}
const DIRECTIONS = new Set<unknown>(['inbound', 'outbound']);
const STATUSES = new Set<unknown>(['open', 'closed']);

function message(v: unknown): MessageRecord {
  const m = obj(v, MESSAGE_KEYS);
  const at = m.created_at;
  if (typeof at !== 'string' || !CANONICAL_TS.test(at) || !DATETIME.test(at) || typeof m.body !== 'string')
    throw NOT_PLAIN;
  return {
    id: uuid(m.id),
    channel: oneOf(m.channel, CHANNEL_SET),
    direction: oneOf(m.direction, DIRECTIONS),
    body: m.body,
    created_at: at,
  };
}

/** The thread as the schema would give it, or undefined when it is not plainly valid (ask the schema). */
export function plainThread(v: unknown): FullThread | undefined {
  try {
    const t = obj(v, THREAD_KEYS);
    const c = obj(t.contact, CONTACT_KEYS);
    const messages = t.messages === undefined ? [] : t.messages;
    if (!Array.isArray(messages)) return undefined;
    return {
      id: uuid(t.id),
      workspace_id: uuid(t.workspace_id),
      subject: text(t.subject),
      status: t.status === undefined ? 'open' : oneOf(t.status, STATUSES),
      unread: flag(t.unread),
      starred: flag(t.starred),
      contact: { id: uuid(c.id), name: text(c.name), email: text(c.email), phone: text(c.phone) },
      messages: messages.map(message),
    };
  } catch (err) {
    if (err === NOT_PLAIN) return undefined;
    throw err;
  }
}
