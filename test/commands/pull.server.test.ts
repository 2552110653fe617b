/*
 * `wcm pull` against real servers (in process, through the CLI's main): scrubbing, a token
 * without an ability, rate limits and server errors on the way, bad input, a server that goes away.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIO, runInProcess } from '../support/cli.js';
import { proxy } from '../support/pull.js';
import { DEMO, demo, onPort, tempDir } from '../support/server.js';

/** The demo workspace's threads (fixtures/demo.json; counted, so a demo record added keeps this true). */
const WS1_THREADS = (JSON.parse(readFileSync(DEMO, 'utf8')).threads as Array<{ workspace_id: string }>).filter(
  (t) => t.workspace_id === demo.ws1,
).length;

type Server = Awaited<ReturnType<typeof onPort>>;

const pull = (base: string, token: string, args: string[], dir: string, env: Record<string, string> = {}) =>
  runInProcess(['pull', ...args], {
    env: {
      WCM_BASE_URL: base,
      WCM_TOKEN: token,
      WCM_WORKSPACE: demo.ws1,
      WCM_CONFIG_DIR: path.join(dir, 'cfg'),
      ...env,
    },
  });

/** The fixture's records but the made token, for comparing two pulls. */
const records = (file: string) => {
  const { tokens: _t, ...rest } = JSON.parse(readFileSync(file, 'utf8'));
  return rest;
};

/** A contact of the demo's Acme Coffee with two threads and a booking (by e-mail, in another case). */
const LINKED = {
  version: 1,
  threads: [1, 2].map((n) => ({
    id: `0000000${n}-aaaa-4aaa-8aaa-00000000000${n}`,
    workspace_id: demo.ws1,
    subject: `Visit ${n}: call me on +44 20 7946 0999 or write to ruth.quarry@customer.example`,
    contact: {
      id: '0000000c-aaaa-4aaa-8aaa-00000000000c',
      name: 'Ruth Quarry',
      email: 'ruth.quarry@customer.example',
      phone: '+447911123456',
    },
    messages: [
      {
        id: `0000000${n}-bbbb-4bbb-8bbb-00000000000${n}`,
        channel: 'email',
        direction: 'inbound',
        body: `Hello, this is Ruth Quarry about visit ${n}.`,
        created_at: `2026-11-1${n}T10:00:00Z`,
      },
    ],
  })),
  bookings: [
    {
      id: '0000000b-aaaa-4aaa-8aaa-00000000000b',
      workspace_id: demo.ws1,
      status: 'confirmed',
      booking_type: { id: '0000000d-aaaa-4aaa-8aaa-00000000000d', name: 'Tasting' },
      contact: { name: 'Ruth Q.', email: 'Ruth.Quarry@Customer.example' },
      starts_at: '2026-12-01T10:00:00Z',
      ends_at: '2026-12-01T11:00:00Z',
      timezone: 'Europe/London',
    },
  ],
};

describe('wcm pull --scrub', () => {
  let source: Server;
  let tmp: ReturnType<typeof tempDir>;
  let text: string;
  let fixture: any;
  beforeAll(async () => {
    tmp = tempDir('wcm-pull-');
    const extra = path.join(tmp.dir, 'linked.json');
    writeFileSync(extra, JSON.stringify(LINKED));
    source = await onPort({ fixtures: [DEMO, extra] });
    const file = path.join(tmp.dir, 'scrubbed.json');
    const r = await pull(source.url, demo.owner, ['--scrub', '--scrub-key', 'test-key-1', '--output', file], tmp.dir);
    expect(r.code, r.stderr).toBe(0);
    text = readFileSync(file, 'utf8');
    fixture = JSON.parse(text);
  }, 60_000);
  afterAll(async () => {
    await source?.close();
    tmp?.cleanup();
  });

  it('leaves no name, e-mail, phone, message body or transcript of the demo data anywhere in the file', () => {
    const d = JSON.parse(readFileSync(DEMO, 'utf8'));
    const originals = new Set<string>();
    const add = (v: unknown) => typeof v === 'string' && v && originals.add(v);
    for (const t of [...d.threads, ...LINKED.threads]) {
      add(t.contact.name);
      add(t.contact.email);
      add(t.contact.phone);
      for (const m of t.messages) add(m.body);
    }
    for (const b of [...d.bookings, ...LINKED.bookings]) {
      add(b.contact.name);
      add(b.contact.email);
    }
    for (const v of d.voice_interactions) {
      add(v.from);
      add(v.to);
      add(v.transcript);
    }
    for (const u of d.users) {
      add(u.name);
      add(u.email);
    }
    for (const o of d.orders ?? []) {
      add(o.customer_name);
      add(o.customer_email);
      add(o.customer_message);
    }
    add('ruth.quarry@customer.example');
    add('+44 20 7946 0999');
    expect(originals.size).toBeGreaterThan(200);
    const found = [...originals].filter((o) => text.includes(JSON.stringify(o).slice(1, -1)));
    expect(found).toEqual([]);
    // Phones also by their digits, however written.
    const digits = text.replace(/[^\d+]/g, ' ');
    for (const p of [...originals].filter((o) => /^\+\d{8,}$/.test(o))) expect(digits).not.toContain(p);
  });

  it('keeps the structure: ids, counts, channels, timestamps, lengths', () => {
    const d = JSON.parse(readFileSync(DEMO, 'utf8'));
    const byId = new Map<string, any>(d.threads.map((t: any) => [t.id, t]));
    const pulled = fixture.threads.filter((t: any) => byId.has(t.id));
    expect(pulled).toHaveLength(WS1_THREADS);
    for (const t of pulled) {
      const o = byId.get(t.id);
      expect(t.status).toBe(o.status);
      expect(t.contact.id).toBe(o.contact.id);
      expect(t.contact.email === null).toBe(o.contact.email == null);
      expect(
        t.messages.map((m: any) => [m.id, m.channel, m.direction, m.created_at.slice(0, 19), m.body.length]),
      ).toEqual(o.messages.map((m: any) => [m.id, m.channel, m.direction, m.created_at.slice(0, 19), m.body.length]));
      if (t.contact.email) expect(t.contact.email).toMatch(/@example\.invalid$/);
      if (t.contact.phone) expect(t.contact.phone).toMatch(/^\+1[2-9][0-8]\d55501\d\d$/);
    }
    for (const v of fixture.voice_interactions) expect(v.from).toMatch(/^\+1[2-9][0-8]\d55501\d\d$/);
  });

  it('gives a contact the same pseudonym in each of its threads and its booking (known by e-mail, any case)', () => {
    const threads = fixture.threads.filter((t: any) => t.contact.id === LINKED.threads[0].contact.id);
    expect(threads).toHaveLength(2);
    expect(threads[1].contact).toEqual(threads[0].contact);
    const booking = fixture.bookings.find((b: any) => b.id === LINKED.bookings[0].id);
    expect(booking.contact).toEqual({ name: threads[0].contact.name, email: threads[0].contact.email });
    // The e-mail and phone quoted in a subject become the same pseudonyms.
    expect(threads[0].subject).toContain(threads[0].contact.email);
    expect(threads[0].subject).toMatch(/call me on \+1\d{3}55501\d\d or write to/);
  });

  it('gives the same pseudonyms with the same --scrub-key, and others with another', async () => {
    const again = path.join(tmp.dir, 'again.json');
    const other = path.join(tmp.dir, 'other.json');
    expect((await pull(source.url, demo.owner, ['--scrub-key', 'test-key-1', '--output', again], tmp.dir)).code).toBe(
      0,
    );
    expect(
      (await pull(source.url, demo.owner, ['--scrub', '--output', other], tmp.dir, { WCM_SCRUB_KEY: 'k2' })).code,
    ).toBe(0);
    const first = records(path.join(tmp.dir, 'scrubbed.json'));
    expect(records(again)).toEqual(first);
    const o = records(other);
    expect(o.threads.map((t: any) => t.id)).toEqual(first.threads.map((t: any) => t.id));
    expect(
      o.threads[0].contact.name === first.threads[0].contact.name &&
        o.threads[0].messages[0].body === first.threads[0].messages[0].body,
    ).toBe(false);
  }, 30_000);
});

describe('wcm pull: abilities, limits and bad input', () => {
  let source: Server;
  let tmp: ReturnType<typeof tempDir>;
  let reference: string;
  beforeAll(async () => {
    tmp = tempDir('wcm-pull-');
    source = await onPort();
    reference = path.join(tmp.dir, 'reference.json');
    const r = await pull(source.url, demo.owner, ['--output', reference], tmp.dir);
    expect(r.code, r.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await source?.close();
    tmp?.cleanup();
  });
  const leftovers = (dir: string) => readdirSync(dir).filter((f) => f !== 'cfg');

  it('skips what a token without engagements:read may not read, and names the ability', async () => {
    const dir = tempDir('wcm-pull-');
    try {
      const file = path.join(dir.dir, 'content.json');
      const r = await pull(source.url, demo.contentReader, ['--output', file, '--json'], dir.dir);
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout);
      for (const c of ['threads', 'bookings', 'voice_interactions'])
        expect(s.collections.find((x: any) => x.name === c)).toEqual({
          name: c,
          count: 0,
          status: 'skipped',
          reason: 'the token may not read it (needs engagements:read)',
        });
      expect(s.collections.find((x: any) => x.name === 'listings')).toMatchObject({ status: 'copied', count: 5 });
      const f = JSON.parse(readFileSync(file, 'utf8'));
      expect(f.threads).toEqual([]);
      expect(f.listings).toHaveLength(5);
      // The plain summary says so too.
      const plain = await pull(source.url, demo.contentReader, ['--output', file], dir.dir);
      expect(plain.stdout).toMatch(/threads\s+0\s+skipped: the token may not read it \(needs engagements:read\)/);
    } finally {
      dir.cleanup();
    }
  });

  it('waits out 429 with Retry-After and retries 500s, and copies the same', async () => {
    const dir = tempDir('wcm-pull-');
    const faults = new Map<number, { status: number; headers?: Record<string, string> }>([
      [3, { status: 429, headers: { 'retry-after': '1' } }],
      [12, { status: 429, headers: { 'retry-after': '1' } }],
      [20, { status: 500 }],
      [30, { status: 503 }],
    ]);
    const p = await proxy(source.url, { fault: (r) => faults.get(r.n) });
    try {
      const file = path.join(dir.dir, 'limited.json');
      const started = Date.now();
      const r = await pull(p.url, demo.owner, ['--output', file, '--concurrency', '1'], dir.dir);
      expect(r.code, r.stderr).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
      expect(records(file)).toEqual(records(reference));
    } finally {
      await p.close();
      dir.cleanup();
    }
  }, 30_000);

  it('--since keeps threads with a message from then on and bookings starting then; --max-threads caps the threads', async () => {
    const dir = tempDir('wcm-pull-');
    try {
      const d = JSON.parse(readFileSync(DEMO, 'utf8'));
      const since = '2026-11-10T00:00:00.000Z';
      const last = (t: any) =>
        t.messages
          .map((m: any) => new Date(m.created_at).toISOString())
          .sort()
          .pop() ?? '';
      const threads = d.threads.filter((t: any) => t.workspace_id === demo.ws1 && last(t) >= since);
      const bookings = d.bookings.filter(
        (b: any) => b.workspace_id === demo.ws1 && new Date(b.starts_at).toISOString() >= since,
      );
      expect(threads.length).toBeGreaterThan(0);
      expect(threads.length).toBeLessThan(WS1_THREADS);
      const file = path.join(dir.dir, 'since.json');
      const r = await pull(source.url, demo.owner, ['--output', file, '--since', '2026-11-10'], dir.dir);
      expect(r.code, r.stderr).toBe(0);
      const f = JSON.parse(readFileSync(file, 'utf8'));
      expect(f.threads.map((t: any) => t.id).sort()).toEqual(threads.map((t: any) => t.id).sort());
      expect(f.bookings.map((b: any) => b.id).sort()).toEqual(bookings.map((b: any) => b.id).sort());
      expect(f.voice_interactions).toHaveLength(16);

      const capped = path.join(dir.dir, 'capped.json');
      const c = await pull(
        source.url,
        demo.owner,
        ['--output', capped, '--max-threads', '7', '--only', 'threads', '--json'],
        dir.dir,
      );
      expect(c.code, c.stderr).toBe(0);
      const ids = JSON.parse(readFileSync(capped, 'utf8')).threads.map((t: any) => t.id);
      expect(ids).toHaveLength(7);
      // The newest of the inbox first: what listThreads answers first.
      const inbox = (await (
        await fetch(`${source.url}/workspaces/${demo.ws1}/threads?limit=7`, {
          headers: { authorization: `Bearer ${demo.owner}` },
        })
      ).json()) as any;
      expect(ids).toEqual(inbox.data.map((t: any) => t.id));
      expect(JSON.parse(c.stdout).notes.join(' ')).toContain('--max-threads');
    } finally {
      dir.cleanup();
    }
  });

  it('wcm local import takes the pulled fixture', async () => {
    const dir = tempDir('wcm-pull-');
    try {
      const r = await runInProcess(['local', 'import', '--data', path.join(dir.dir, 'store.json'), reference], {
        env: { WCM_CONFIG_DIR: path.join(dir.dir, 'cfg') },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`${WS1_THREADS} threads`);
    } finally {
      dir.cleanup();
    }
  });

  it('on a terminal, stderr shows the collection, its count and its rate', async () => {
    const dir = tempDir('wcm-pull-');
    const slow = await proxy(source.url, { delayMs: 15 });
    try {
      const io = fakeIO({ tty: true });
      const r = await runInProcess(
        ['pull', '--output', path.join(dir.dir, 'tty.json'), '--only', 'threads', '--concurrency', '1'],
        {
          io,
          env: {
            WCM_BASE_URL: slow.url,
            WCM_TOKEN: demo.owner,
            WCM_WORKSPACE: demo.ws1,
            WCM_CONFIG_DIR: path.join(dir.dir, 'cfg'),
          },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/pulling threads: \d+ \S*\d+\/s/);
      expect(r.stdout).toMatch(new RegExp(`threads\\s+${WS1_THREADS}\\s+copied`));
    } finally {
      await slow.close();
      dir.cleanup();
    }
  }, 30_000);

  it("waits out the server's own injected faults (429 with Retry-After, 500) and copies the same", async () => {
    const dir = tempDir('wcm-pull-');
    const faulty = await onPort();
    const control = (body: unknown) =>
      fetch(`${new URL(faulty.url).origin}/_emulator/faults`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${faulty.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    try {
      const set = await control([
        { operation: 'getThread', status: 429, probability: 0.15 },
        { operation: 'listVoiceInteractions', status: 500, probability: 0.3 },
        { operation: 'listBookings', status: 503, probability: 0.3 },
      ]);
      expect(set.status).toBe(200);
      const file = path.join(dir.dir, 'faults.json');
      const r = await pull(faulty.url, demo.owner, ['--output', file], dir.dir);
      expect(r.code, r.stderr).toBe(0);
      expect(records(file)).toEqual(records(reference));
    } finally {
      await faulty.close();
      dir.cleanup();
    }
  }, 60_000);

  it('an invalid token: exit 4, nothing written', async () => {
    const dir = tempDir('wcm-pull-');
    try {
      const r = await pull(
        source.url,
        'wcm_pat_notARealToken0123456789abcdefghijkl',
        ['--output', path.join(dir.dir, 'x.json')],
        dir.dir,
      );
      expect(r.code).toBe(4);
      expect(leftovers(dir.dir)).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });

  it('a workspace /me does not list: exit 5 naming those it does, nothing written', async () => {
    const dir = tempDir('wcm-pull-');
    try {
      const r = await pull(
        source.url,
        demo.owner,
        ['--workspace', '00000000-0000-4000-8000-000000000000', '--output', path.join(dir.dir, 'x.json')],
        dir.dir,
      );
      expect(r.code).toBe(5);
      expect(r.stderr).toContain('is not one this token reaches');
      expect(r.stderr).toContain(demo.ws1);
      expect(leftovers(dir.dir)).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });

  it('an unknown workspace on a server without /me: exit 5, nothing written', async () => {
    const dir = tempDir('wcm-pull-');
    const p = await proxy(source.url, { allow: (r) => r.path !== '/me' && r.path !== '/openapi.json' });
    try {
      const r = await pull(
        p.url,
        demo.owner,
        ['--workspace', '00000000-0000-4000-8000-000000000000', '--output', path.join(dir.dir, 'x.json')],
        dir.dir,
      );
      expect(r.code).toBe(5);
      expect(leftovers(dir.dir)).toEqual([]);
    } finally {
      await p.close();
      dir.cleanup();
    }
  });

  it('bad flags: exit 2 before any request', async () => {
    const dir = tempDir('wcm-pull-');
    const p = await proxy(source.url);
    try {
      for (const args of [
        ['--only', 'threads,nope'],
        ['--since', 'yesterday'],
        ['--concurrency', '0'],
        ['--max-threads', 'x'],
        ['--knowledge-list', 'abc'],
        ['--output', '-', '--resume'],
      ]) {
        const r = await pull(p.url, demo.owner, args, dir.dir);
        expect(r.code, args.join(' ')).toBe(2);
      }
      expect(p.requests).toEqual([]);
    } finally {
      await p.close();
      dir.cleanup();
    }
  });

  it('a server that goes down mid-pull: exit 1, says how far it got, leaves nothing that looks complete', async () => {
    const dir = tempDir('wcm-pull-');
    let down = false;
    const p = await proxy(source.url, { fault: (r) => (r.n >= 25 ? ((down = true), undefined) : undefined) });
    // From the 25th request on, connections are refused: the proxy stops listening.
    const stopAt = setInterval(() => down && (void p.close(), clearInterval(stopAt)), 1);
    try {
      const file = path.join(dir.dir, 'down.json');
      const r = await pull(p.url, demo.owner, ['--output', file, '--concurrency', '1'], dir.dir, { WCM_RETRIES: '1' });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/Pull stopped: copied \d+ listings.*so far/);
      expect(r.stderr).toContain('--resume');
      expect(existsSync(file)).toBe(false);
      expect(existsSync(`${file}.partial`)).toBe(true);
      expect(() => JSON.parse(readFileSync(`${file}.partial`, 'utf8'))).toThrow();
    } finally {
      clearInterval(stopAt);
      await p.close().catch(() => undefined);
      dir.cleanup();
    }
  }, 30_000);

  it('--output - writes the fixture to stdout and the summary to stderr', async () => {
    const dir = tempDir('wcm-pull-');
    try {
      const r = await pull(source.url, demo.owner, ['--output', '-', '--only', 'agents,offers'], dir.dir);
      expect(r.code, r.stderr).toBe(0);
      const f = JSON.parse(r.stdout);
      expect(f.agents).toHaveLength(3);
      expect(f.offers).toHaveLength(5);
      expect(f.threads).toBeUndefined();
      expect(r.stderr).toMatch(/threads\s+0\s+not requested/);
      expect(leftovers(dir.dir)).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });
});
