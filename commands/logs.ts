import { defineCommand } from '../src/cli/command.js';
import { controlRequest, controlStream } from '../src/cli/control.js';
import { UsageError } from '../src/cli/errors.js';
import type { LoggedRequest as Entry } from '../src/server/emulator/log.js';
import { fitCell, fitWidths, printRows, terminalSafe, visibleWidth } from '../src/cli/output.js';

interface Options {
  follow?: boolean;
  status?: string;
  operation?: string;
  limit?: string;
  all?: boolean;
}

/** On a terminal the time of day (UTC, to the millisecond): the date would take a third of 80 columns. */
const timeOfDay = (iso: string) => /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(iso)?.[1] ?? iso;

const COLUMNS = [
  { header: 'TIME (UTC)', value: (e: Entry) => timeOfDay(e.time), fixed: true },
  { header: 'STATUS', value: (e: Entry) => String(e.status) },
  { header: 'METHOD', value: (e: Entry) => e.method },
  { header: 'OPERATION', value: (e: Entry) => e.operation ?? '-' },
  { header: 'PATH', value: (e: Entry) => e.path },
  { header: 'MS', value: (e: Entry) => String(e.duration_ms) },
  { header: 'PROBLEM', value: (e: Entry) => e.problem ?? '' },
  { header: 'REQUEST ID', value: (e: Entry) => e.request_id },
];

/**
 * One `--follow` line: fixed widths so lines align without seeing the next, and fitted to `width`
 * as tables are (the operation, path and problem give way; the time and request id never do).
 */
export function followLine(e: Entry, width: number): string {
  const cells = COLUMNS.map((c) => c.value(e));
  cells[5] += ' ms';
  const natural = [12, 3, 7, 28, 40, 11, visibleWidth(cells[6]), visibleWidth(cells[7])].map((w, i) =>
    Math.max(w, visibleWidth(cells[i])),
  );
  const widths = fitWidths(natural, [false, false, false, true, true, false, true, false], width);
  return cells
    .map((c, i) => {
      const cut = fitCell(c, widths[i]);
      const pad = ' '.repeat(Math.max(0, widths[i] - visibleWidth(cut)));
      return i === 5 ? pad + cut : cut + pad;
    })
    .join('  ')
    .trimEnd();
}

export default defineCommand<Options>({
  path: ['logs'],
  summary: "The running local server's request log (the last 10,000 requests); --follow streams it",
  description:
    "A table on a terminal; one JSON line per request when piped or with --json. The server's own traffic (the\ndashboard's pages and assets, /healthz, /favicon.ico) is left out unless --all. Needs the admin token\n(profile `local`, or WCM_ADMIN_TOKEN).\n" +
    'Each `wcm serve` process keeps its own log: on a PostgreSQL store shared by several processes, this\n' +
    'shows the requests of the one process the profile reaches, not the others.',
  options: [
    { flags: '-f, --follow', description: 'keep printing requests as they arrive (Server-Sent Events)' },
    { flags: '--status <status>', description: 'only this status (404) or class (4xx, 5xx)' },
    { flags: '--operation <id>', description: 'only this operationId' },
    { flags: '--limit <n>', description: 'the newest N (default 100; 1 to 10000)' },
    { flags: '--all', description: "also the server's own traffic: dashboard pages, /healthz, /favicon.ico" },
  ],
  examples: [
    'wcm logs',
    'wcm logs --status 5xx',
    'wcm logs --follow --operation createListing',
    'wcm logs --json | jq .duration_ms',
    'wcm logs --all',
  ],
  async run(opts, f) {
    if (opts.status !== undefined && !/^([1-5]xx|[1-5]\d\d)$/i.test(opts.status))
      throw new UsageError(`\`--status\` must be like 404 or 4xx; received \`${opts.status}\`.`);
    if (opts.limit !== undefined && !(/^\d+$/.test(opts.limit) && +opts.limit >= 1 && +opts.limit <= 10_000))
      throw new UsageError(`\`--limit\` must be a whole number from 1 to 10000; received \`${opts.limit}\`.`);
    const q = new URLSearchParams();
    if (opts.status) q.set('status', opts.status.toLowerCase());
    if (opts.operation) q.set('operation', opts.operation);
    if (opts.limit) q.set('limit', opts.limit);
    if (opts.all) q.set('all', 'true');
    const lines = f.globals.json || !f.io.isStdoutTTY;
    const print = async (entries: Entry[], follow: boolean) => {
      if (lines) for (const e of entries) f.io.stdout.write(`${JSON.stringify(e)}\n`);
      else if (!follow) await printRows(f.io, entries, COLUMNS);
      // A live table: one aligned line per request as it arrives, cut to the terminal's width.
      else for (const e of entries.map(terminalSafe)) f.io.stdout.write(`${followLine(e, f.io.columns)}\n`);
    };
    if (!opts.follow) {
      await print(await controlRequest<Entry[]>(f, 'GET', `/requests${q.size ? `?${q}` : ''}`), false);
      return 0;
    }
    const res = await controlStream(f, `/requests/stream${q.size ? `?${q}` : ''}`);
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      let at;
      while ((at = buf.indexOf('\n\n')) !== -1) {
        const event = buf.slice(0, at);
        buf = buf.slice(at + 2);
        const data = event.split('\n').find((l) => l.startsWith('data: '));
        if (data) await print([JSON.parse(data.slice(6)) as Entry], true);
      }
    }
    return 0;
  },
});
