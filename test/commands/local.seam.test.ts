// `wcm local …` through the run(options, factory) seam: the control-plane commands' requests (path, body,
// admin token) and the flags refused before any request; the store commands' flag checks. Against a
// real server: test/e2e (sandbox, snapshots, faults, clock) and public.server.test.ts (orders, events).
import path from 'node:path';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import localClock from '../../commands/local/clock.js';
import clockClear from '../../commands/local/clock/clear.js';
import clockSet from '../../commands/local/clock/set.js';
import localEvents from '../../commands/local/events.js';
import localExport from '../../commands/local/export.js';
import faultsAdd from '../../commands/local/faults/add.js';
import faultsClear from '../../commands/local/faults/clear.js';
import faultsLs from '../../commands/local/faults/ls.js';
import faultsSet from '../../commands/local/faults/set.js';
import localImport from '../../commands/local/import.js';
import localOrders from '../../commands/local/orders.js';
import localReset from '../../commands/local/reset.js';
import snapshotLs from '../../commands/local/snapshot/ls.js';
import snapshotRestore from '../../commands/local/snapshot/restore.js';
import snapshotRm from '../../commands/local/snapshot/rm.js';
import snapshotSave from '../../commands/local/snapshot/save.js';
import localToken from '../../commands/local/token.js';
import { ProfileStore } from '../../src/cli/config.js';
import { CliError, UsageError } from '../../src/cli/errors.js';
import { Store } from '../../src/store/json/store.js';
import type { Prompter } from '../../src/cli/io.js';
import type { StubRequest } from '../client/stubs.js';
import { fakeIO } from '../support/cli.js';
import { record, seamHarness, type SeamHarness } from './harness.js';

const ADMIN = { WCM_ADMIN_TOKEN: 'admin_seam' };
const rule = { operation: 'getThread', probability: 1, status: 500 };
/** What the control plane answers: the clock, the faults in force, the snapshots, a reset, a save. */
function control(req: StubRequest) {
  const p = new URL(req.url, 'http://x').pathname;
  if (p === '/_emulator/clock') return record({ now: '2027-01-01T00:00:00.000Z', offset_seconds: 3600 });
  if (p === '/_emulator/faults') return record(req.method === 'PUT' ? JSON.parse(req.body) : [rule]);
  if (p === '/_emulator/snapshots' && req.method === 'GET')
    return record([{ name: 'before-tests', bytes: 10, saved_at: '2026-11-01T10:00:00.000Z' }]);
  if (p === '/_emulator/snapshots') return record({ name: 'before-tests', bytes: 10 });
  if (p === '/_emulator/reset') return record({ to: JSON.parse(req.body).to, records: { users: 1 }, duration_ms: 3 });
  return record(null);
}

let h: SeamHarness;
afterEach(() => h.close());
const plane = (o: Parameters<typeof seamHarness>[1] = {}) =>
  seamHarness(control, { ...o, env: { ...ADMIN, ...o.env } });
const calls = () => h.stub.requests.map((_, i) => `${h.request(i).method} ${h.request(i).path}`);
const refused = (
  def: Parameters<SeamHarness['refused']>[0],
  opts: object,
  kind: Parameters<SeamHarness['refused']>[2] = UsageError,
) => h.refused(def, opts, kind);

describe('the control plane: admin token and origin', () => {
  it("every control request goes to the target's origin under /_emulator with the admin token", async () => {
    h = await plane();
    await h.run(localClock);
    expect(h.request()).toEqual({ method: 'GET', path: '/_emulator/clock', query: {} });
    expect(h.stub.requests[0].headers.authorization).toBe('Bearer admin_seam');
    expect(h.io.out()).toBe('now\t2027-01-01T00:00:00.000Z\noffset\t3600 s\n');
  });

  it("without WCM_ADMIN_TOKEN: profile `local`'s admin token, only when it points at the same origin", async () => {
    h = await seamHarness(control);
    const p = await ProfileStore.open(h.env);
    await p.set('local', { base_url: 'http://127.0.0.1:1/v1', admin_token: 'admin_elsewhere' });
    const err = await h.run(faultsLs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(4);
    expect((err as Error).message).toBe(`No admin token for ${h.stub.url}.`);
    expect(h.stub.requests).toHaveLength(0);
    await p.set('local', { base_url: h.stub.base, admin_token: 'admin_saved' });
    await h.run(faultsLs);
    expect(h.stub.requests[0].headers.authorization).toBe('Bearer admin_saved');
  });
});

describe('wcm local clock (run seam)', () => {
  it('set --offset puts offset_seconds, set --now puts now; clear deletes the offset', async () => {
    h = await plane();
    await h.run(clockSet, { offset: '-90.5' });
    await h.run(clockSet, { now: '2027-01-01T00:00:00Z' });
    await h.run(clockClear);
    expect(calls()).toEqual(['PUT /_emulator/clock', 'PUT /_emulator/clock', 'DELETE /_emulator/clock']);
    expect(h.body(0)).toEqual({ offset_seconds: -90.5 });
    expect(h.body(1)).toEqual({ now: '2027-01-01T00:00:00Z' });
    expect(h.body(2)).toBeUndefined();
  });

  it('set with neither or both flags, or an --offset that is not a number: refused, nothing sent', async () => {
    h = await plane();
    expect(await refused(clockSet, {})).toBe('Give exactly one of `--offset` or `--now`.');
    expect(await refused(clockSet, { offset: '1', now: '2027-01-01T00:00:00Z' })).toBe(
      'Give exactly one of `--offset` or `--now`.',
    );
    expect(await refused(clockSet, { offset: 'an hour' })).toBe(
      '`--offset` must be a number of seconds; received `an hour`.',
    );
    expect(await refused(clockSet, { offset: ' ' })).toBe('`--offset` must be a number of seconds; received ` `.');
  });
});

describe('wcm local faults (run seam)', () => {
  it('set replaces the rules with the one of the flags (probability 1 unless given; --drop is reset)', async () => {
    h = await plane();
    await h.run(faultsSet, { operation: 'listThreads', status: '503', probability: '0.5', latency: '800' });
    await h.run(faultsSet, { operation: '*', drop: true });
    expect(calls()).toEqual(['PUT /_emulator/faults', 'PUT /_emulator/faults']);
    expect(h.body(0)).toEqual([{ operation: 'listThreads', probability: 0.5, status: 503, latency_ms: 800 }]);
    expect(h.body(1)).toEqual([{ operation: '*', probability: 1, reset: true }]);
  });

  it('add reads the rules in force and puts them back with the new one last', async () => {
    h = await plane();
    await h.run(faultsAdd, { operation: 'getForm', latency: '300' });
    expect(calls()).toEqual(['GET /_emulator/faults', 'PUT /_emulator/faults']);
    expect(h.body(1)).toEqual([rule, { operation: 'getForm', probability: 1, latency_ms: 300 }]);
    expect(h.io.err()).toBe('Fault added for getForm; 2 rules in force (`wcm local faults ls`).\n');
  });

  it('ls gets the rules; clear deletes them', async () => {
    h = await plane();
    await h.run(faultsLs);
    await h.run(faultsClear);
    expect(calls()).toEqual(['GET /_emulator/faults', 'DELETE /_emulator/faults']);
    expect(h.io.out()).toBe('getThread\t500\t1\t-\n');
  });

  it.each([faultsSet, faultsAdd])(
    '%# without --operation, or with a non-number: refused, nothing sent',
    async (def) => {
      h = await plane();
      expect(await refused(def, { status: '500' })).toBe('Missing `--operation` (an operationId, or `*`).');
      expect(await refused(def, { operation: 'getForm', latency: 'slow' })).toBe(
        '`--latency` must be a number; received `slow`.',
      );
      expect(await refused(def, { operation: 'getForm', probability: '' })).toBe(
        '`--probability` must be a number; received ``.',
      );
    },
  );
});

describe('wcm local reset and snapshots (run seam)', () => {
  it('reset --to STATE posts it; snapshot restore NAME is the same request', async () => {
    h = await plane();
    await h.run(localReset, { to: 'seed' });
    await h.run(snapshotRestore, { args: ['before-tests'] });
    expect(calls()).toEqual(['POST /_emulator/reset', 'POST /_emulator/reset']);
    expect(h.body(0)).toEqual({ to: 'seed' });
    expect(h.body(1)).toEqual({ to: 'before-tests' });
  });

  it('reset piped without --to: a usage error listing the states, nothing sent (never a default wipe)', async () => {
    h = await plane();
    expect(await refused(localReset, {})).toMatch(/^`wcm local reset` needs `--to`: `seed` /);
  });

  it('reset --to empty on a terminal asks first: no sends nothing (exit 1); --yes does not ask', async () => {
    let asked = 0;
    const prompter: Partial<Prompter> = { confirm: () => (asked++, Promise.resolve(false)) };
    h = await plane({ io: fakeIO({ tty: true, prompter }) });
    expect(await h.run(localReset, { to: 'empty' })).toBe(1);
    expect(h.stub.requests).toHaveLength(0);
    expect(await h.run(localReset, { to: 'empty', yes: true })).toBe(0);
    expect(asked).toBe(1);
    expect(h.body(0)).toEqual({ to: 'empty' });
  });

  it('reset on a terminal without --to offers seed, the snapshots and empty, then posts the choice', async () => {
    let offered: string[] = [];
    const prompter: Partial<Prompter> = {
      select: ((o: { choices: Array<{ value: string }> }) => {
        offered = o.choices.map((c) => c.value);
        return Promise.resolve('before-tests');
      }) as Prompter['select'],
    };
    h = await plane({ io: fakeIO({ tty: true, prompter }) });
    await h.run(localReset);
    expect(offered).toEqual(['seed', 'before-tests', 'empty']);
    expect(calls()).toEqual(['GET /_emulator/snapshots', 'POST /_emulator/reset']);
    expect(h.body(1)).toEqual({ to: 'before-tests' });
  });

  it('snapshot save posts the name, ls gets them, rm deletes the name (path-encoded)', async () => {
    h = await plane();
    await h.run(snapshotSave, { args: ['before-tests'] });
    await h.run(snapshotLs);
    await h.run(snapshotRm, { args: ['a b/c'] });
    expect(calls()).toEqual([
      'POST /_emulator/snapshots',
      'GET /_emulator/snapshots',
      'DELETE /_emulator/snapshots/a%20b%2Fc',
    ]);
    expect(h.body(0)).toEqual({ name: 'before-tests' });
  });
});

describe('wcm local store commands: flags checked before the store is opened', () => {
  it.each([
    ['import', localImport, ['f.json']],
    ['export', localExport, ['-']],
    ['token', localToken, []],
  ])('%s: --data with --store, or a --store that is not postgres://, is a usage error', async (_n, def, args) => {
    h = await seamHarness();
    expect(await refused(def, { args, data: 'x.json', store: 'postgres://u@h/db' })).toBe(
      'Pass either `--data` (a JSON data file) or `--store` (PostgreSQL), not both.',
    );
    expect(await refused(def, { args, store: 'mysql://h/db' })).toBe(
      '`--store` must be a postgres:// URL (postgres://USER:PASS@HOST:5432/DB) or `embedded`; received `mysql://h/db`.',
    );
  });

  it('a bad WCM_STORE is named as such, its password masked', async () => {
    h = await seamHarness(undefined, { env: { WCM_STORE: 'pg://ada:hunter2@h/db' } });
    const message = await refused(localExport, { args: ['-'] });
    expect(message).toBe(
      '`WCM_STORE` must be a postgres:// URL (postgres://USER:PASS@HOST:5432/DB) or `embedded`; received `pg://ada:***@h/db`.',
    );
  });

  it('--store embedded is for `wcm serve` only', async () => {
    h = await seamHarness();
    expect(await refused(localExport, { args: ['-'], store: 'embedded' })).toBe(
      '`--store embedded` is for `wcm serve`; give the other commands the postgres:// URL it printed.',
    );
  });

  it.each([
    ['orders', localOrders],
    ['events', localEvents],
    ['export', localExport],
  ])('%s without a data file: exit 1 naming the file it looked for', async (_n, def) => {
    h = await seamHarness();
    const message = await refused(def, { args: ['-'] }, CliError);
    expect(message).toBe(`No data file at ${h.cwd}/.wcm/store.json.`);
  });
});

describe('wcm local export: where it writes', () => {
  it('a directory that does not exist: exit 1 naming it, and no file (not the temporary one) left', async () => {
    h = await seamHarness();
    const data = path.join(h.cwd, '.wcm', 'store.json');
    await (await Store.open(data)).close();
    const target = path.join(h.cwd, 'missing', 'out.json');
    const message = await refused(localExport, { args: [target] }, CliError);
    expect(message).toBe(
      `Cannot write the export to ${target}: the directory ${path.dirname(target)} does not exist. Nothing was written.`,
    );
    expect(existsSync(path.dirname(target))).toBe(false);
  });
});
