// `wcm lists ls --all --json` streams: its peak RSS at 100,000 items is about that at 10,000. A page
// generator answers (cursor = offset, the page size asked), so the figure is the CLI's alone. This
// was a test (test/e2e/large-list.test.ts keeps the output checks); a memory figure belongs here.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { runOnce } from './procs.mjs';

const SMALL = 10_000;
const LARGE = 100_000;
/** What buffering 100,000 items would add is well over 40 MB; streaming adds next to nothing. */
const FLAT_MB = 25;

/**
 * A listings page the API could send for request target `url`: the item count is the workspace id's
 * first eight digits, the cursor an offset. test/e2e/large-list.test.ts pages through it too.
 */
export function generatedPage(url) {
  const u = new URL(url, 'http://x');
  const total = Number(/\/workspaces\/(\d{8})-/.exec(u.pathname)?.[1] ?? 0);
  const from = Number(u.searchParams.get('cursor') ?? 0);
  const to = Math.min(total, from + Number(u.searchParams.get('limit') ?? 25));
  const data = [];
  for (let i = from; i < to; i++)
    data.push({
      id: `item-${i}`,
      title: `Listing number ${i} with a title of ordinary length`,
      dashboard_url: `https://app.example.com/dashboard/lists/item-${i}`,
    });
  return { data, meta: { request_id: 'req_big', next_cursor: to < total ? String(to) : null } };
}

/** A stub API answering generatedPage. */
function pageGenerator() {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(generatedPage(req.url)));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** One section of test/bench/run.mjs (`--only cli-memory`); `ctx` is what run.mjs hands its sections. */
export async function benchCliMemory({ row, log, fmt, cliEnv, NODE, WCM, work }) {
  const server = await pageGenerator();
  const base = `http://127.0.0.1:${server.address().port}/v1`;
  const outFile = path.join(work, 'cli-memory-out.json');
  const peak = async (total, json) => {
    const env = {
      ...cliEnv,
      WCM_BASE_URL: base,
      WCM_TOKEN: 'wcm_pat_x',
      WCM_WORKSPACE: `${String(total).padStart(8, '0')}-0000-4000-8000-000000000000`,
    };
    const r = await runOnce(NODE, [WCM, 'lists', 'ls', '--all', ...json], {
      env,
      stdoutFile: outFile,
      measureRss: true,
    });
    if (r.code !== 0) throw new Error(`wcm lists ls --all ${json.join(' ')} exited ${r.code}: ${r.stderr.slice(-500)}`);
    const items = JSON.parse(readFileSync(outFile, 'utf8'));
    if (items.length !== total || items[total - 1].id !== `item-${total - 1}`)
      throw new Error(`wcm lists ls --all printed ${items.length} items, expected ${total}`);
    return r.peakMB;
  };
  try {
    for (const json of [['--json'], ['--json', 'id,title']]) {
      const small = await peak(SMALL, json);
      const large = await peak(LARGE, json);
      log(`wcm lists ls --all ${json.join(' ')}: peak ${fmt.mb(small)} at ${SMALL}, ${fmt.mb(large)} at ${LARGE}`);
      row(
        `\`wcm lists ls --all ${json.join(' ')}\` from a page generator: CLI peak RSS, ${fmt.n(SMALL)} and ${fmt.n(LARGE)} items`,
        `${fmt.mb(small)}; ${fmt.mb(large)}`,
        '—',
        `+${fmt.mb(large - small)}`,
        `${fmt.n(LARGE)} items add < ${FLAT_MB} MB (the output streams)`,
        large - small < FLAT_MB,
      );
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
