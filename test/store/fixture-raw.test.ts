import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plainThread } from '../../src/store/fixture-fast.js';
import { rawThread } from '../../src/store/fixture-raw.js';
import { LazyLines } from '../../src/store/lazy-lines.js';
import { seedStore } from '../support/seed-store.js';
import { Store } from '../../src/store/store.js';
import { packThread } from '../../src/store/threads.js';
import { tempDir } from '../support/server.js';

const id = (n: number) => `${String(n).padStart(8, '0')}-1c1e-4c1e-8c1e-0b5e5a5e1c1e`;
const message = (n: number, over: Record<string, unknown> = {}) => ({
  id: id(100 + n),
  channel: n % 2 ? 'email' : 'whatsapp',
  direction: n % 3 ? 'inbound' : 'outbound',
  body: `body ${n}`,
  created_at: `2024-02-${String(10 + n).padStart(2, '0')}T10:00:00.000Z`,
  ...over,
});
const thread = (messages: unknown[] = [message(1), message(2)], over: Record<string, unknown> = {}) => ({
  id: id(1),
  workspace_id: id(2),
  subject: 'Hello',
  status: 'closed',
  unread: true,
  starred: false,
  contact: { id: id(3), name: 'Ann', email: null, phone: null },
  ...over,
  messages,
});

/** What the parsing path makes of these bytes: the record and the messages line, or undefined. */
function parsed(bytes: Buffer): { thread: string; line: Buffer } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const t = plainThread(value);
  if (!t) return undefined;
  const lines = new LazyLines(0);
  return { thread: JSON.stringify(packThread(t, lines)), line: lines.bytes() };
}

/** What rawThread makes of them (with bytes around them, as in a file), or undefined when it leaves them to parsing. */
function raw(bytes: Buffer): { thread: string; line: Buffer } | undefined {
  const buf = Buffer.concat([Buffer.from('[1,'), bytes, Buffer.from(',{"id":2}]')]);
  const got = rawThread(buf, 3, 3 + bytes.length);
  if (!got) return undefined;
  const lines = new LazyLines(0);
  lines.addJson(got.thread.id, buf, got.messages[0], got.messages[1]);
  return { thread: JSON.stringify(got.thread), line: lines.bytes() };
}

/** rawThread takes only what parsing takes, and makes the same record and line of it, byte for byte. */
function expectSame(bytes: Buffer): boolean {
  const r = raw(bytes);
  if (r === undefined) return false;
  const p = parsed(bytes);
  expect(p, bytes.toString('latin1')).toBeDefined();
  expect(r.thread).toBe(p!.thread);
  expect(r.line.equals(p!.line), bytes.toString('latin1')).toBe(true);
  return true;
}
const bytesOf = (v: unknown) => Buffer.from(JSON.stringify(v));

describe('rawThread (a fixture thread taken from its bytes)', () => {
  const TAKEN: Array<[string, Buffer]> = [
    ['the store’s own form', bytesOf(thread())],
    ['no messages', bytesOf(thread([]))],
    ['defaults left out', bytesOf({ id: id(1), workspace_id: id(2), contact: { id: id(3) }, messages: [message(1)] })],
    ['escapes JSON.stringify writes', bytesOf(thread([message(1, { body: 'a "b" \\ c\n\t\r\b\f' })]))],
    ['UTF-8 text and an emoji', bytesOf(thread([message(1, { body: 'café ✓ 😀' })]))],
    ['two messages at the same moment', bytesOf(thread([message(1), message(1, { id: id(9) })]))],
    [
      'every channel',
      bytesOf(thread(['web_chat', 'email', 'whatsapp', 'form'].map((c, i) => message(i, { channel: c })))),
    ],
    ['a leap day', bytesOf(thread([message(1, { created_at: '2024-02-29T23:59:59.999Z' })]))],
    ['a subject holding `,"messages":[`', bytesOf(thread(undefined, { subject: ',"messages":[' }))],
  ];
  it.each(TAKEN)('%s: taken, the same record and line as parsing gives', (_n, bytes) => {
    expect(expectSame(bytes)).toBe(true);
  });

  const canonical = JSON.stringify(thread());
  const LEFT: Array<[string, Buffer]> = [
    ['spaces', Buffer.from(JSON.stringify(thread(), null, 1))],
    ['messages not last', bytesOf({ id: id(1), workspace_id: id(2), messages: [message(1)], contact: { id: id(3) } })],
    ['messages out of order (parsing sorts them)', bytesOf(thread([message(2), message(1)]))],
    ['a \\u escape', Buffer.from(canonical.replace('body 1', 'b\\u00e9dy'))],
    ['an escaped slash', Buffer.from(canonical.replace('body 1', 'a\\/b'))],
    ['a raw control character', Buffer.from(canonical.replace('body 1', 'a\u0001b'))],
    [
      'bytes that are not UTF-8',
      Buffer.concat([Buffer.from(canonical.slice(0, -20)), Buffer.from([0xff]), Buffer.from(canonical.slice(-20))]),
    ],
    [
      'another member order in a message',
      Buffer.from(
        canonical.replace('"channel":"email","direction":"inbound"', '"direction":"inbound","channel":"email"'),
      ),
    ],
    ['an extra message member', bytesOf(thread([{ ...message(1), x: 1 }]))],
    ['a message id that is no UUID', bytesOf(thread([message(1, { id: 'msg_1' })]))],
    ['an unknown channel', bytesOf(thread([message(1, { channel: 'sms' })]))],
    ['an impossible date', bytesOf(thread([message(1, { created_at: '2023-02-29T00:00:00.000Z' })]))],
    ['an hour 24', bytesOf(thread([message(1, { created_at: '2024-01-01T24:00:00.000Z' })]))],
    ['no milliseconds', bytesOf(thread([message(1, { created_at: '2024-01-01T00:00:00Z' })]))],
    ['messages twice', Buffer.from(canonical.replace('"subject"', '"messages":[],"subject"'))],
    ['messages inside the contact', Buffer.from(canonical.replace('"phone":null}', `"phone":null,"messages":[]}`))],
    ['a bad thread id', bytesOf(thread(undefined, { id: 'thr_1' }))],
    ['a member after the messages', Buffer.from(canonical.replace(/\]\}$/, '],"x":1}'))],
    ['no closing brace after the messages', Buffer.from(canonical.replace(/\]\}$/, '] }'))],
  ];
  it.each(LEFT)('%s: left to parsing', (_n, bytes) => {
    expect(raw(bytes)).toBeUndefined();
  });

  it('takes nothing parsing would not, and makes the same of what it takes, under random changes to the bytes', () => {
    // A deterministic generator: the same cases every run.
    let s = 42;
    const next = (n: number) => (s = (s * 1103515245 + 12345) & 0x7fffffff) % n;
    const alphabet = Buffer.from('0123456789abcdefAF-:.TZ"\\,{}[]nrtu/ \u0001');
    const base = bytesOf(thread([message(1), message(2, { body: 'x"y' }), message(3)]));
    let taken = 0;
    for (let i = 0; i < 4000; i++) {
      const b = Buffer.from(base);
      for (let k = 1 + next(2); k > 0; k--) b[next(b.length)] = alphabet[next(alphabet.length)];
      if (expectSame(b)) taken++;
    }
    // Many changes keep the thread valid (a digit for a digit): those are compared too.
    expect(taken).toBeGreaterThan(100);
  });
});

describe('a seed takes threads from their bytes or parses them: the same data file either way', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => void ({ dir, cleanup } = tempDir()));
  afterEach(() => cleanup());

  it('a compact fixture and the same fixture with spaces seed byte-identical data files', async () => {
    const threads = Array.from({ length: 1500 }, (_, i) =>
      // Every seventh thread's messages out of order, which only parsing takes.
      thread(i % 7 ? [message(1), message(2)] : [message(2), message(1)], { id: id(10_000 + i) }),
    );
    const doc = { version: 1, workspaces: [{ id: id(2), name: 'W' }], threads };
    const seeded = async (name: string, text: string) => {
      const fixture = path.join(dir, `${name}.json`);
      writeFileSync(fixture, text);
      const file = path.join(dir, `${name}.store.json`);
      const s = await Store.open(file);
      expect(await seedStore(s, [fixture])).toEqual({ workspaces: 1, threads: 1500 });
      expect(s.get('thread_messages', id(10_000))?.messages.map((m) => m.body)).toEqual(['body 1', 'body 2']);
      await s.close();
      return readFileSync(file);
    };
    const compact = await seeded('compact', JSON.stringify(doc));
    // A thread in the store's form followed by a stray brace: the same error as ever.
    const text = JSON.stringify(doc);
    const at = text.indexOf(']},{') + 2;
    writeFileSync(path.join(dir, 'bad.json'), `${text.slice(0, at)}}${text.slice(at)}`);
    const s = await Store.open(path.join(dir, 'bad.store.json'));
    await expect(seedStore(s, [path.join(dir, 'bad.json')])).rejects.toThrow(
      `is not valid JSON (expected \`,\` or \`]\` in "threads" at byte ${at})`,
    );
    expect(s.isEmpty()).toBe(true);
    await s.close();
    const spaced = await seeded('spaced', JSON.stringify(doc, null, 2));
    expect(compact.equals(spaced)).toBe(true);
  });
});
