// `wcm logs` through the run(options, factory) seam: its flags become the control plane's query, bad
// ones are refused before any request. Against a real server: test/e2e (the request log).
import { afterEach, expect, it } from 'vitest';
import logs from '../../commands/logs.js';
import { UsageError } from '../../src/cli/errors.js';
import { fakeIO } from '../support/cli.js';
import { record, seamHarness, type SeamHarness } from './harness.js';

const entry = (seq: number) => ({
  seq,
  time: '2026-11-01T10:00:00.000Z',
  method: 'GET',
  path: '/v1/me',
  operation: 'getMe',
  status: 200,
  duration_ms: 2,
  request_id: `req_${seq}`,
  problem: null,
  client: 'wcm/1',
});

let h: SeamHarness;
afterEach(() => h.close());
const withAdmin = (o: Parameters<typeof seamHarness>[1] = {}) =>
  seamHarness(
    (req) =>
      req.url.startsWith('/_emulator/requests/stream')
        ? {
            status: 200,
            headers: { 'content-type': 'text/event-stream' },
            body: `data: ${JSON.stringify(entry(3))}\n\n: keep-alive\n\n`,
          }
        : record([entry(1), entry(2)]),
    { ...o, env: { WCM_ADMIN_TOKEN: 'admin_seam', ...o.env } },
  );

it('no flags: GET /_emulator/requests with no query; piped, one JSON line per request', async () => {
  h = await withAdmin();
  expect(await h.run(logs)).toBe(0);
  expect(h.request()).toEqual({ method: 'GET', path: '/_emulator/requests', query: {} });
  expect(h.stub.requests[0].headers.authorization).toBe('Bearer admin_seam');
  expect(h.io.out()).toBe(`${JSON.stringify(entry(1))}\n${JSON.stringify(entry(2))}\n`);
});

it('--status (lower-cased), --operation, --limit and --all become the query', async () => {
  h = await withAdmin();
  await h.run(logs, { status: '5XX', operation: 'createListing', limit: '20', all: true });
  expect(h.request().query).toEqual({ status: '5xx', operation: 'createListing', limit: '20', all: 'true' });
});

it('--follow reads the stream with the same query and prints each event as it arrives', async () => {
  h = await withAdmin();
  expect(await h.run(logs, { follow: true, status: '404' })).toBe(0);
  expect(h.request()).toEqual({ method: 'GET', path: '/_emulator/requests/stream', query: { status: '404' } });
  expect(h.stub.requests[0].headers.accept).toBe('text/event-stream');
  expect(h.io.out()).toBe(`${JSON.stringify(entry(3))}\n`);
});

it('on a terminal without --json: a table, not JSON lines', async () => {
  h = await withAdmin({ io: fakeIO({ tty: true }) });
  await h.run(logs);
  expect(h.io.out()).toMatch(/TIME \(UTC\)\s+STATUS\s+METHOD\s+OPERATION\s+PATH/);
  expect(h.io.out()).not.toContain('{"seq"');
});

it.each([
  [{ status: '4x' }, '`--status` must be like 404 or 4xx; received `4x`.'],
  [{ status: '600' }, '`--status` must be like 404 or 4xx; received `600`.'],
  [{ limit: '-1' }, '`--limit` must be a whole number from 1 to 10000; received `-1`.'],
  [{ limit: 'ten' }, '`--limit` must be a whole number from 1 to 10000; received `ten`.'],
  [{ limit: '0' }, '`--limit` must be a whole number from 1 to 10000; received `0`.'],
  [{ limit: '10001' }, '`--limit` must be a whole number from 1 to 10000; received `10001`.'],
])('%j is a usage error naming the flag; nothing is sent', async (opts, message) => {
  h = await withAdmin();
  const err = await h.run(logs, opts).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).toBe(message);
  expect(h.stub.requests).toHaveLength(0);
});

it.each([80, 100, 160])('--follow lines fit %i columns; the time and the request id stay whole', async (width) => {
  const { followLine } = await import('../../commands/logs.js');
  const long = {
    ...entry(1),
    path: '/v1/workspaces/775050e9-98e8-4600-8d0f-afce4b67e137/threads?view=unread&channel=whatsapp&limit=100',
    operation: 'listVoiceInteractions',
    problem: 'workspace_not_found',
    request_id: 'req_TVKcRmGI9jwItFGB1cY3',
  };
  const line = followLine(long, width);
  expect(line.length).toBeLessThanOrEqual(width);
  expect(line.startsWith('10:00:00.000  200  GET  ')).toBe(true);
  expect(line.endsWith('  req_TVKcRmGI9jwItFGB1cY3')).toBe(true);
  if (width < 160) expect(line).toContain('…');
});
