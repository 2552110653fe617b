import { describe, expect, it } from 'vitest';
import { CliError, EXIT, UsageError } from '../../src/cli/errors.js';
import { ApiError } from '../../src/client/errors.js';
import {
  JsonArrayStream,
  printError,
  printFields,
  printRows,
  relativeTime,
  type Column,
} from '../../src/cli/output.js';
import { fakeIO } from '../support/cli.js';

interface Row {
  id: string;
  title: string;
}
const long = 'x'.repeat(200);
const rows: Row[] = [
  { id: 'a1', title: 'First\tone' },
  { id: 'b2', title: long },
];
const columns: Column<Row>[] = [
  { header: 'ID', value: (r) => r.id, pretty: (r, s) => s.bold(r.id) },
  { header: 'TITLE', value: (r) => r.title, maxWidth: 20 },
];
const ANSI = /\x1b\[/;

describe('printRows', () => {
  it('piped: tab-separated rows, no header, no colour, no truncation, tabs in cells flattened', async () => {
    const io = fakeIO({ tty: false });
    await printRows(io, rows, columns);
    expect(io.out()).toBe(`a1\tFirst one\nb2\t${long}\n`);
  });

  it.each([[true], [false]])('a record missing members (another server) prints empty cells, tty %s', async (tty) => {
    const io = fakeIO({ tty });
    const partial = [{ id: 'x' }, { id: 'y', title: null }] as unknown as Row[];
    await printRows(io, partial, [
      ...columns,
      {
        header: 'URL',
        value: (r: Row & { url?: string }) => r.url as string,
        pretty: (r: Row & { url?: string }, st) => st.dim(r.url as string),
      },
    ]);
    const lines = io.out().trimEnd().split('\n');
    expect(lines.at(-2)!.trim()).toMatch(/^x$/);
    // A member sent as null is "nothing there": `—` on a terminal, an empty field when piped.
    expect(lines.at(-1)!.trim()).toMatch(tty ? /^y\s+—$/ : /^y$/);
    expect(io.out()).not.toContain('undefined');
    expect(io.out()).not.toContain('null');
  });

  it('terminal: a table with a header and long cells cut', async () => {
    const io = fakeIO({ tty: true });
    await printRows(io, rows, columns);
    const lines = io.out().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TITLE$/);
    expect(lines[1]).toMatch(/^a1\s+First one$/);
    expect(lines[2]).toContain(`${'x'.repeat(19)}…`);
    expect(io.out()).not.toContain(long);
    expect(io.out()).not.toMatch(ANSI);
  });

  it('terminal with colour: ANSI codes; without (NO_COLOR/--no-color): none', async () => {
    const coloured = fakeIO({ tty: true, color: true });
    await printRows(coloured, rows, columns);
    expect(coloured.out()).toMatch(ANSI);
    const plain = fakeIO({ tty: true, color: false });
    await printRows(plain, rows, columns);
    expect(plain.out()).not.toMatch(ANSI);
  });

  it('printFields: aligned on a terminal, key<TAB>value piped', async () => {
    const piped = fakeIO();
    await printFields(piped, [
      ['id', '1'],
      ['title', 'T'],
    ]);
    expect(piped.out()).toBe('id\t1\ntitle\tT\n');
    const tty = fakeIO({ tty: true });
    await printFields(tty, [
      ['id', '1'],
      ['title', 'T'],
    ]);
    expect(tty.out()).toBe('id     1\ntitle  T\n');
  });
});

describe('JsonArrayStream', () => {
  it.each([
    [[], []],
    [[[1, 2]], [1, 2]],
    [
      [[{ a: 1 }], [], [{ b: 'x\ny' }, null]],
      [{ a: 1 }, { b: 'x\ny' }, null],
    ],
  ])('pages %j make one JSON array', async (pages, expected) => {
    const io = fakeIO();
    const s = new JsonArrayStream(io.stdout);
    for (const p of pages) await s.push(p);
    s.end();
    expect(JSON.parse(io.out())).toEqual(expected);
  });

  it('writes each page as it arrives, before the array ends', async () => {
    const io = fakeIO();
    const s = new JsonArrayStream(io.stdout);
    await s.push([{ n: 1 }]);
    expect(io.out()).toContain('{"n":1}');
    expect(io.out().trimEnd().endsWith(']')).toBe(false);
  });
});

describe('printError', () => {
  const problem = {
    type: 'urn:wcm:problem:validation_failed',
    title: 'Validation failed',
    status: 422,
    code: 'validation_failed',
    detail: '2 fields failed validation',
    resolution: 'Fix the fields listed in `errors` and retry.',
    instance: '/v1/x',
    request_id: 'req_abc',
    errors: { title: ['Required'], 'items.0.title': ['Too long'] },
  };

  it('prints title, detail, every field error, resolution and request id', async () => {
    const io = fakeIO();
    await printError(io, new ApiError(422, problem), false);
    const err = io.err();
    for (const part of [
      'Validation failed',
      '422 validation_failed',
      '2 fields failed validation',
      'title: Required',
      'items.0.title: Too long',
      'Fix the fields listed',
      'request id: req_abc',
    ]) {
      expect(err).toContain(part);
    }
    expect(io.out()).toBe('');
  });

  it('with --json prints the problem object itself on stderr', async () => {
    const io = fakeIO();
    await printError(io, new ApiError(422, problem), true);
    expect(JSON.parse(io.err())).toEqual(problem);
    expect(io.out()).toBe('');
  });

  it('a CLI-side error with --json has the same members', async () => {
    const io = fakeIO();
    await printError(io, new UsageError('Missing --title.', 'Pass --title.'), true);
    expect(JSON.parse(io.err())).toEqual({
      title: 'Usage error',
      code: 'usage_error',
      detail: 'Missing --title.',
      resolution: 'Pass --title.',
      errors: {},
    });
  });

  it('a CLI-side error in text: message and hint', async () => {
    const io = fakeIO();
    await printError(io, new CliError('Not logged in.', EXIT.auth, 'Run `wcm auth login`.'), false);
    expect(io.err()).toBe('Error: Not logged in.\n  → Run `wcm auth login`.\n');
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  it.each([
    ['2026-11-22T11:59:50Z', 'just now'],
    ['2026-11-22T11:57:00Z', '3 minutes ago'],
    ['2026-11-22T10:00:00Z', '2 hours ago'],
    ['2026-11-20T12:00:00Z', '2 days ago'],
    ['2026-11-22T13:00:00Z', 'in 1 hour'],
    [null, '—'],
  ])('%s → %s', (iso, expected) => expect(relativeTime(iso, now)).toBe(expected));
});
