import { defineCommand, type ListFlags } from '../../src/cli/command.js';
import { UsageError } from '../../src/cli/errors.js';
import { runList } from '../../src/cli/list.js';
import type { Column } from '../../src/cli/output.js';
import type { Booking } from '../../src/contract/types.js';
import { BOOKING_STATUSES } from '../../src/contract/enums.js';

interface LsOptions extends ListFlags {
  status?: string;
  from?: string;
  to?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * `--from`/`--to`: an ISO 8601 date-time with `Z` or an offset, or a bare date (midnight UTC).
 * Returned as the UTC instant the server compares `starts_at` with.
 */
export function parseInstant(flag: string, raw: string): string {
  const dateOnly = DATE.test(raw);
  const m = dateOnly ? DATE.exec(raw) : DATE_TIME.exec(raw);
  const bad = () =>
    new UsageError(
      `\`${flag}\` must be an ISO 8601 date or date-time; received \`${raw}\`.`,
      'Examples: 2026-11-01, 2026-11-01T09:00:00Z, 2026-11-01T09:00:00+01:00.',
    );
  if (!m) throw bad();
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [h, mi, se] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  // Date.parse rolls 30 February over into March; a calendar check refuses it instead.
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (
    day.getUTCFullYear() !== y ||
    day.getUTCMonth() !== mo - 1 ||
    day.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    se > 59
  )
    throw bad();
  const at = Date.parse(dateOnly ? `${raw}T00:00:00Z` : raw);
  if (Number.isNaN(at)) throw bad();
  return new Date(at).toISOString();
}

/** The booking's own wall-clock time (what the customer booked), e.g. `Tue 3 Nov 2026, 14:00–16:00`. */
function localSpan(b: Booking): string {
  try {
    const day = new Intl.DateTimeFormat('en-GB', {
      timeZone: b.timezone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
    });
    const time = new Intl.DateTimeFormat('en-GB', {
      timeZone: b.timezone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    const start = new Date(b.starts_at);
    return `${day.format(start)}, ${time.format(start)}–${time.format(new Date(b.ends_at))}`;
  } catch {
    return `${b.starts_at} – ${b.ends_at}`;
  }
}

const ttyColumns: Column<Booking>[] = [
  { header: 'WHEN', value: localSpan, pretty: (b, s) => s.bold(localSpan(b)) },
  { header: 'TIMEZONE', value: (b) => b.timezone, pretty: (b, s) => s.dim(b.timezone) },
  {
    header: 'STATUS',
    value: (b) => b.status,
    pretty: (b, s) =>
      b.status === 'confirmed' ? s.green(b.status) : b.status === 'pending' ? s.yellow(b.status) : s.red(b.status),
  },
  { header: 'TYPE', value: (b) => b.booking_type.name, maxWidth: 30 },
  { header: 'CONTACT', value: (b) => b.contact.name ?? b.contact.email ?? '—', maxWidth: 30 },
  { header: 'ID', value: (b) => b.id, pretty: (b, s) => s.dim(b.id) },
];

const plainColumns: Column<Booking>[] = [
  { header: 'ID', value: (b) => b.id },
  { header: 'STARTS_AT', value: (b) => b.starts_at },
  { header: 'ENDS_AT', value: (b) => b.ends_at },
  { header: 'TIMEZONE', value: (b) => b.timezone },
  { header: 'STATUS', value: (b) => b.status },
  { header: 'TYPE', value: (b) => b.booking_type.name },
  { header: 'CONTACT', value: (b) => b.contact.name ?? '' },
  { header: 'EMAIL', value: (b) => b.contact.email ?? '' },
];

export default defineCommand<LsOptions>({
  path: ['bookings', 'ls'],
  output: 'listBookings',
  summary: 'List bookings, soonest first',
  description:
    '`--from` and `--to` bound `starts_at` (from inclusive, to exclusive); a bare date means midnight UTC.\n' +
    'Piped output is tab-separated: id, starts_at, ends_at, timezone, status, type, contact name, email.',
  list: true,
  examples: [
    'wcm bookings ls',
    'wcm bookings ls --status confirmed --from 2026-11-01 --to 2026-12-01',
    'wcm bookings ls --all --json',
  ],
  options: [
    { flags: '--status <status>', description: 'only bookings with this status', choices: BOOKING_STATUSES },
    { flags: '--from <time>', description: 'only bookings starting at or after this ISO 8601 date or date-time' },
    { flags: '--to <time>', description: 'only bookings starting before this ISO 8601 date or date-time' },
  ],
  async run(opts, f) {
    const from = opts.from !== undefined ? parseInstant('--from', opts.from) : undefined;
    const to = opts.to !== undefined ? parseInstant('--to', opts.to) : undefined;
    if (from && to && from > to)
      throw new UsageError(
        `\`--from\` (${opts.from}) is after \`--to\` (${opts.to}).`,
        'Swap them: --from is the earlier bound.',
      );
    const workspace = await f.workspace();
    const columns = f.io.isStdoutTTY ? ttyColumns : plainColumns;
    return runList(
      f,
      opts,
      'listBookings',
      { params: { workspace }, query: { status: opts.status, from, to } },
      columns,
      'bookings',
    );
  },
});
