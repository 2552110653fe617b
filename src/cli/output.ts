import type { IO, Writer } from './io.js';
import { EXIT, apiErrorOf, codeForExit, exitCodeOf, hintOf } from './errors.js';

/** A column of a list: plain text for pipes, optionally a prettier cell for terminals. */
export interface Column<T> {
  header: string;
  /** The cell's text; `null` (nothing there) is `—` on a terminal and an empty field when piped. */
  value(row: T): string | null;
  pretty?(row: T, style: Style): string;
  /** Terminal only: longer cells are cut with an ellipsis. */
  maxWidth?: number;
  /**
   * Never cut to fit the terminal's width. Columns headed `ID` (or `… ID`) and columns whose every
   * cell is an id (a UUID, `req_…`, `wcm_app_…`) are never cut either, without saying so.
   */
  fixed?: boolean;
}

/** Colour helpers that are no-ops when colour is off (chalk is loaded only for terminals). */
export interface Style {
  dim(s: string): string;
  bold(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const plain: Style = {
  dim: (s) => s,
  bold: (s) => s,
  red: (s) => s,
  green: (s) => s,
  yellow: (s) => s,
  cyan: (s) => s,
};

export async function style(io: IO): Promise<Style> {
  if (!io.color) return plain;
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  return { dim: c.dim, bold: c.bold, red: c.red, green: c.green, yellow: c.yellow, cyan: c.cyan };
}

/** Style for stderr lines (its own TTY check). */
export async function errStyle(io: IO): Promise<Style> {
  if (!io.isStderrTTY || !io.color) return plain;
  return style(io);
}

function truncate(s: string, max?: number): string {
  if (!max || s.length <= max) return s;
  return `${s.slice(0, Math.max(1, max - 1))}…`;
}

const ANSI = /\x1b\[[0-9;]*m/g;
/** East Asian wide and fullwidth characters, and emoji: two columns on a terminal. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|\p{Emoji_Presentation}/u;
const charWidth = (c: string) => (WIDE.test(c) ? 2 : 1);
/** The columns a cell takes on a terminal: colour codes take none, wide characters two. */
export function visibleWidth(s: string): number {
  let w = 0;
  for (const c of s.replace(ANSI, '')) w += charWidth(c);
  return w;
}

/**
 * A cell cut to `max` columns with an ellipsis, colour kept: the escape codes after the cut are
 * kept (without their text), so a colour opened before it is closed.
 */
export function fitCell(s: string, max: number): string {
  if (visibleWidth(s) <= max) return s;
  let out = '';
  let w = 0;
  let cut = false;
  for (const part of s.split(/(\x1b\[[0-9;]*m)/)) {
    if (part.startsWith('\x1b[')) {
      out += part;
      continue;
    }
    if (cut) continue;
    for (const c of part) {
      if (w + charWidth(c) > max - 1) {
        out += '…';
        cut = true;
        break;
      }
      out += c;
      w += charWidth(c);
    }
  }
  return out;
}

const ID_CELL = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z]+_[A-Za-z0-9_]{6,})$/i;
/** The gap between columns: cli-table3's `middle` below, with no padding in the cells. */
const GAP = 2;

/**
 * Column widths that fit `width` terminal columns, as gh's tables do: while the row is too wide,
 * the widest column that may be cut gives up one column, so the widest free text goes first and
 * short columns last (none below 3). Ids are never cut; when they alone are too wide, the lines wrap.
 */
export function fitWidths(natural: number[], cuttable: boolean[], width: number): number[] {
  const widths = [...natural];
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  while (total() > width) {
    let at = -1;
    for (let i = 0; i < widths.length; i++)
      if (cuttable[i] && widths[i] > 3 && (at === -1 || widths[i] > widths[at])) at = i;
    if (at === -1) break;
    widths[at]--;
  }
  return widths;
}

/**
 * C0 and C1 control characters (ESC, CSI, BEL, CR…), except tab and newline: in text from a
 * server they could retitle the terminal, clear it or rewrite what was printed (TRUST §6).
 */
const CONTROL = /\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/** Server text as a terminal may show it: every control character replaced by U+FFFD. */
export const terminalText = (s: string): string => s.replace(CONTROL, (c) => (c === '\r\n' ? '\n' : '\uFFFD'));

/** A copy of server data whose strings are all `terminalText`: what tables and records are built from. */
export function terminalSafe<T>(v: T): T {
  if (typeof v === 'string') return terminalText(v) as T;
  if (Array.isArray(v)) return v.map(terminalSafe) as T;
  if (!v || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = terminalSafe(x);
  return out as T;
}

/** One cell: a value another server left out (undefined, null) is an empty cell, never a crash. */
const tsvCell = (s: unknown) => (s === undefined || s === null ? '' : String(s)).replace(/[\t\n\r]/g, ' ');

/** Rows as a table on a terminal, tab-separated rows (no header, no truncation) when piped. */
export async function printRows<T>(io: IO, serverRows: T[], columns: Column<T>[]): Promise<void> {
  const rows = serverRows.map(terminalSafe);
  if (!io.isStdoutTTY) {
    for (const row of rows) io.stdout.write(columns.map((c) => tsvCell(c.value(row))).join('\t') + '\n');
    return;
  }
  if (!rows.length) return;
  const s = await style(io);
  const heads = columns.map((c) => c.header);
  const cells = rows.map((row) =>
    columns.map((c) => {
      if (c.pretty) return tsvCell(c.pretty(row, s));
      const v = c.value(row);
      return v === null ? s.dim('—') : truncate(tsvCell(v), c.maxWidth);
    }),
  );
  const natural = heads.map((h, i) => Math.max(visibleWidth(h), ...cells.map((r) => visibleWidth(r[i]))));
  const cuttable = columns.map(
    (c) =>
      !c.fixed &&
      !/(^|[ _])ID$/.test(c.header) &&
      !rows.every((row) => {
        const v = tsvCell(c.value(row));
        return v === '' || ID_CELL.test(v);
      }),
  );
  const widths = fitWidths(natural, cuttable, io.columns);
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: heads.map((h, i) => s.bold(fitCell(h, widths[i]))),
    style: { head: [], border: io.color ? ['grey'] : [], compact: true, 'padding-left': 0, 'padding-right': 0 },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
  });
  for (const r of cells) table.push(r.map((cell, i) => fitCell(cell, widths[i])));
  io.stdout.write(
    table
      .toString()
      .split('\n')
      .map((l) => l.replace(/\s+$/, ''))
      .join('\n') + '\n',
  );
}

/**
 * Key/value lines for one record: aligned on a terminal, `key<TAB>value` when piped. A value that is
 * not there (`null`, `undefined`) is `—` on a terminal and an empty field when piped, as TSV
 * readers expect.
 */
export async function printFields(io: IO, serverFields: Array<[string, string | null | undefined]>): Promise<void> {
  if (!io.isStdoutTTY) {
    for (const [k, v] of serverFields) io.stdout.write(`${k}\t${tsvCell(v == null ? '' : terminalText(String(v)))}\n`);
    return;
  }
  const s = await style(io);
  const w = Math.max(...serverFields.map(([k]) => k.length));
  for (const [k, v] of serverFields)
    io.stdout.write(`${s.dim(k.padEnd(w))}  ${v == null ? s.dim('—') : terminalText(String(v))}\n`);
}

/** `--json a,b`: set once per run (main.ts); every JSON printer keeps only these fields. */
let jsonFields: string[] | null = null;
let select: ((v: unknown, fields: string[]) => unknown) | null = null;
export async function selectJsonFields(fields: string[] | undefined): Promise<void> {
  jsonFields = fields?.length ? fields : null;
  select = jsonFields ? (await import('./json-fields.js')).selectFields : null;
}
const selected = (v: unknown) => (jsonFields && select ? select(v, jsonFields) : v);

export function printJson(out: Writer, value: unknown): void {
  out.write(JSON.stringify(selected(value), null, 2) + '\n');
}

/**
 * Writes one JSON array as items arrive, so `--all --json` keeps memory flat however long the list.
 */
export class JsonArrayStream {
  private first = true;
  constructor(private readonly out: Writer) {
    out.write('[');
  }
  async push(items: unknown[]): Promise<void> {
    if (!items.length) return;
    let chunk = '';
    for (const item of items) {
      chunk += (this.first ? '\n  ' : ',\n  ') + JSON.stringify(selected(item));
      this.first = false;
    }
    if (!this.out.write(chunk)) await drained(this.out);
  }
  end(): void {
    this.out.write(this.first ? ']\n' : '\n]\n');
  }
}

function drained(out: Writer): Promise<void> {
  const e = out as unknown as { once?: (ev: string, cb: () => void) => void };
  return e.once ? new Promise((r) => e.once!('drain', r)) : Promise.resolve();
}

/** Errors on stderr: title, detail, resolution, field errors, request id; `--json`: the problem object. */
export async function printError(io: IO, err: unknown, json: boolean): Promise<void> {
  const api = apiErrorOf(err);
  if (api) {
    const p = api.problem;
    if (json) {
      io.stderr.write(JSON.stringify({ status: api.status, ...p }) + '\n');
      return;
    }
    const s = await errStyle(io);
    const t = terminalText;
    io.stderr.write(
      `${s.red('Error:')} ${s.bold(t(p.title ?? `HTTP ${api.status}`))}${p.code ? s.dim(` (${api.status} ${t(String(p.code))})`) : ''}\n`,
    );
    if (p.detail && p.detail !== p.title) io.stderr.write(`  ${t(p.detail)}\n`);
    for (const [field, msgs] of Object.entries(p.errors ?? {})) {
      for (const m of msgs) io.stderr.write(`  ${s.yellow(`• ${t(field)}`)}: ${t(String(m))}\n`);
    }
    if (p.resolution) io.stderr.write(`  ${s.cyan('→')} ${t(p.resolution)}\n`);
    if (p.request_id) io.stderr.write(s.dim(`  request id: ${t(String(p.request_id))}\n`));
    return;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (json) {
    // Same members as a server problem, so scripts parse one shape whatever failed.
    const exitCode = exitCodeOf(err);
    io.stderr.write(
      JSON.stringify({
        title: exitCode === EXIT.usage ? 'Usage error' : 'Error',
        code: codeForExit(exitCode),
        detail: message,
        ...(hintOf(err) ? { resolution: hintOf(err) } : {}),
        errors: {},
      }) + '\n',
    );
    return;
  }
  // A message may quote a server (a network error, an unexpected answer): shown as text only.
  const s = await errStyle(io);
  io.stderr.write(`${s.red('Error:')} ${terminalText(message)}\n`);
  if (hintOf(err)) io.stderr.write(`  ${s.cyan('→')} ${terminalText(hintOf(err)!)}\n`);
}

/** `25.00 USD`: an amount in minor units, as people read it. */
export function formatMoney(minor: number, currency: string): string {
  return `${(minor / 100).toFixed(2)} ${currency.toUpperCase()}`;
}

/** "3 minutes ago" for people; exact timestamps stay in piped output and JSON. */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const diff = (now - Date.parse(iso)) / 1000;
  const future = diff < 0;
  const d = Math.abs(diff);
  const units: Array<[number, string]> = [
    [60, 'second'],
    [60, 'minute'],
    [24, 'hour'],
    [30, 'day'],
    [12, 'month'],
    [Infinity, 'year'],
  ];
  let v = d;
  for (const [size, name] of units) {
    if (v < size) {
      const n = Math.floor(v);
      if (name === 'second' && n < 45) return future ? 'in a moment' : 'just now';
      const label = `${n} ${name}${n === 1 ? '' : 's'}`;
      return future ? `in ${label}` : `${label} ago`;
    }
    v /= size;
  }
  return iso;
}
