import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIO, runInProcess } from '../support/cli.js';
import { b, eng, t, v, writeEngagementFixture } from '../support/engagement.js';
import { onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let dir: ReturnType<typeof tempDir>;
let env: Record<string, string>;
beforeAll(async () => {
  dir = tempDir();
  server = await onPort({ fixtures: [writeEngagementFixture(dir.dir)] });
  env = { WCM_BASE_URL: server.url, WCM_TOKEN: eng.token, WCM_WORKSPACE: eng.wsA, WCM_CONFIG_DIR: dir.dir };
});
afterAll(async () => {
  await server.close();
  dir.cleanup();
});

const piped = (args: string[]) => runInProcess(args, { env });
/** A terminal wide enough that no cell is cut to fit (test/e2e/table-width.test.ts covers narrow ones). */
const tty = (args: string[]) => runInProcess(args, { env, io: Object.assign(fakeIO({ tty: true }), { columns: 200 }) });
const tsv = (...rows: string[][]) => rows.map((r) => `${r.join('\t')}\n`).join('');

describe('wcm threads ls', () => {
  it('piped: one tab-separated line per thread with exact ISO timestamps and plain values', async () => {
    const r = await piped(['threads', 'ls', '--view', 'unread']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      tsv(
        [
          t(5),
          '2025-03-01T14:00:00.000Z',
          'open',
          'true',
          'true',
          'whatsapp',
          'Quinn Ray',
          'orchid.mail@example.test',
          '',
          'Subject 5',
          '1',
        ],
        [
          t(1),
          '2025-03-01T11:00:00.000Z',
          'open',
          'true',
          'false',
          'email,whatsapp',
          'Person 1',
          'person1@example.test',
          '',
          'Subject 1',
          '2',
        ],
      ),
    );
    expect(r.stderr).toBe('');
  });

  it.each([
    [
      ['--view', 'closed'],
      [4, 3],
    ],
    [['--view', 'starred', '--channel', 'form'], [3]],
    [
      ['--channel', 'email'],
      [7, 1],
    ],
    [['--search', 'KETTLE'], [7]],
    [['--search', 'mango'], []],
  ])('passes %j to the server', async (flags, expected) => {
    const r = await piped(['threads', 'ls', ...flags]);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual(expected.map(t));
  });

  it('on a terminal: a table with ● unread and ★ starred marks, contact labels and relative times', async () => {
    const r = await tty(['threads', 'ls', '--view', 'starred']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').map((l) => l.trimEnd());
    expect(lines[0]).toMatch(/CONTACT\s+CHANNELS\s+SUBJECT\s+LAST MESSAGE\s+ID/);
    expect(lines[1]).toMatch(
      /^●★\s+Quinn Ray\s+whatsapp\s+Subject 5\s+\d+ (months?|years?) ago\s+10000000-0000-4000-8000-000000000005$/,
    );
    expect(lines[2]).toMatch(/^ ★\s+Zelda Quartz\s+web_chat\s+Subject 2\s+\d+ (months?|years?) ago/);
    expect(lines[3]).toMatch(/^ ★\s+Person 3\s+form\s+Subject 3 · closed\s+/);
    expect(r.stdout).not.toContain('2025-03-01T');
    expect(r.stderr).toContain(server.url);
  });

  it('on a terminal: a contact without a name shows the email, else the phone', async () => {
    const r = await tty(['threads', 'ls']);
    expect(r.stdout).toMatch(/\+15550006\s+\(no subject\)/);
  });

  it('--json prints the data array and nothing else', async () => {
    const r = await runInProcess(['threads', 'ls', '--view', 'closed', '--json'], { env, io: fakeIO({ tty: true }) });
    expect(JSON.parse(r.stdout).map((x: { id: string }) => x.id)).toEqual([t(4), t(3)]);
  });

  it('--all --json follows every page into one array', async () => {
    const r = await piped(['threads', 'ls', '--all', '--limit', '2', '--json']);
    expect(JSON.parse(r.stdout).map((x: { id: string }) => x.id)).toEqual([5, 2, 7, 1, 6].map(t));
  });

  it('--limit with a next page says how to continue, and --cursor continues there', async () => {
    const first = await piped(['threads', 'ls', '--limit', '3']);
    expect(first.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeTruthy();
    const next = await piped(['threads', 'ls', '--limit', '3', '--cursor', cursor!]);
    expect(
      next.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual([t(1), t(6)]);
  });

  it.each([
    [['--view', 'archive'], /Allowed choices are inbox, unread, starred, closed/],
    [['--channel', 'sms'], /Allowed choices are web_chat, email, whatsapp, form/],
    [['--search', 'x'.repeat(201)], /`--search` is at most 200 characters; received 201/],
    [['--limit', '0'], /`--limit` must be an integer from 1 to 100/],
  ])('refuses %j locally with a usage error (exit 2)', async (flags, message) => {
    const r = await piped(['threads', 'ls', ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});

describe('wcm threads show', () => {
  it('piped: header fields, then each message with its exact time, direction and channel', async () => {
    const r = await piped(['threads', 'show', t(1)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `thread\t${t(1)}`,
        'contact\tPerson 1',
        'email\tperson1@example.test',
        'phone\t',
        'subject\tSubject 1',
        'status\topen',
        'unread\ttrue',
        'starred\tfalse',
        'channels\temail,whatsapp',
        'messages\t2',
        '',
        '2025-03-01T10:00:00.000Z\tinbound\temail',
        'A mango question from earlier',
        '',
        '2025-03-01T11:00:00.000Z\tinbound\twhatsapp',
        'Parcel landed safely, thanks!',
        '',
      ].join('\n'),
    );
  });

  it('on a terminal: the contact and subject, then one block per message with ← / → and the channel', async () => {
    const r = await tty(['threads', 'show', t(2)]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('Zelda Quartz  person2@example.test');
    expect(lines[1]).toBe('Subject 2');
    expect(lines[2]).toBe('open · ★ starred · 1 message · web_chat');
    expect(lines[4]).toMatch(/^→ outbound {2}web_chat {2}\d+ (months?|years?) ago · 2025-03-01T12:00:00.000Z$/);
    expect(lines[5]).toBe('  Hello from the chat');
    const t1 = await tty(['threads', 'show', t(1)]);
    expect(t1.stdout).toMatch(/← inbound {2}email .*\n {2}A mango question from earlier\n\n← inbound {2}whatsapp/);
  });

  it.each([
    ["another workspace's thread", t(8), 5, /thread_not_found/],
    ['an unknown thread', t(99), 5, /No thread with id/],
    ['something that is not an id', 'latest', 2, /`THREAD` must be a thread id/],
  ])('fails for %s', async (_what, id, code, message) => {
    const r = await piped(['threads', 'show', id]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });
});

describe('wcm bookings ls', () => {
  it('piped: exact values, soonest first', async () => {
    const r = await piped(['bookings', 'ls', '--status', 'confirmed']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      tsv(
        [
          b(2),
          '2025-11-02T09:00:00.000Z',
          '2025-11-02T10:00:00.000Z',
          'Europe/Paris',
          'confirmed',
          'Tasting',
          'Guest 2',
          'guest2@example.test',
        ],
        [
          b(4),
          '2025-11-03T09:00:00.000Z',
          '2025-11-03T10:00:00.000Z',
          'Europe/Paris',
          'confirmed',
          'Tasting',
          'Guest 4',
          'guest4@example.test',
        ],
        [
          b(5),
          '2025-11-05T00:00:00.000Z',
          '2025-11-05T01:00:00.000Z',
          'Europe/Paris',
          'confirmed',
          'Tasting',
          'Guest 5',
          'guest5@example.test',
        ],
      ),
    );
  });

  it.each([
    [
      ['--from', '2025-11-03'],
      [3, 4, 5],
    ],
    [['--from', '2025-11-02T09:00:00Z', '--to', '2025-11-03T09:00:00Z'], [2]],
    [
      ['--from', '2025-11-03T10:00+01:00'],
      [3, 4, 5],
    ],
    [['--to', '2025-11-02'], [1]],
  ])('%j → %j', async (flags, expected) => {
    const r = await piped(['bookings', 'ls', ...flags]);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual(expected.map(b));
  });

  it("on a terminal: the booking's own local time and a coloured status", async () => {
    const r = await tty(['bookings', 'ls', '--status', 'pending']);
    expect(r.stdout).toMatch(/Sat, 1 Nov 2025, 10:00–11:00\s+Europe\/Paris\s+pending\s+Tasting\s+Guest 1/);
  });

  it.each([
    [['--from', 'yesterday'], /`--from` must be an ISO 8601 date or date-time; received `yesterday`/],
    [['--to', '2025-02-30'], /`--to` must be an ISO 8601/],
    [['--from', '2025-11-05', '--to', '2025-11-01'], /`--from` \(2025-11-05\) is after `--to`/],
    [['--status', 'done'], /Allowed choices are pending, confirmed, cancelled/],
  ])('refuses %j locally (exit 2)', async (flags, message) => {
    const r = await piped(['bookings', 'ls', ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('wcm voice ls', () => {
  it('piped: exact values, newest first', async () => {
    const r = await piped(['voice', 'ls', '--kind', 'call']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      tsv(
        [v(3), '2025-11-03T08:00:00.000Z', 'call', 'missed', '+15550000003', '+15559999999', '183', ''],
        [
          v(1),
          '2025-11-01T08:00:00.000Z',
          'call',
          'answered',
          '+15550000001',
          '+15559999999',
          '61',
          'Asked about hours.',
        ],
      ),
    );
  });

  it('on a terminal: relative time, kind, status, duration as m:ss', async () => {
    const r = await tty(['voice', 'ls']);
    expect(r.stdout).toMatch(
      /ago\s+voice message\s+voicemail\s+\+15550000002\s+\+15559999999\s+2:02\s+Please call back\./,
    );
    expect(r.stdout).toMatch(/ago\s+call\s+missed\s+\+15550000003\s+\+15559999999\s+3:03\s+—/);
  });

  it('refuses an unknown --kind locally (exit 2)', async () => {
    const r = await piped(['voice', 'ls', '--kind', 'sms']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Allowed choices are call, voice_message/);
  });
});
