// The PostgreSQL rows of `npm run bench` (docs/sandbox.md; targets in test/bench/README.md): wcm serve on a
// durable embedded cluster (fsync and synchronous_commit on, the server's defaults) against the
// JSON store and against a bare node:http server querying the same database, in the same run.
// run.mjs passes what they share with its other rows (`ctx`); each row gets a database of its own.
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './datasets.mjs';
import { delayProxy } from './delay-proxy.mjs';
import { benchUser, writeAuthFixture } from './auth-data.mjs';
import { httpRequest, median } from './procs.mjs';

const DEMO_OWNER = 'wcm_pat_demoOwnerAllAbilities0123456789abcdefghi';
const DEMO_WS = '775050e9-98e8-4600-8d0f-afce4b67e137';

export function pgSections(ctx) {
  const { cfg, row, notes, fmt, log } = ctx;
  let cluster = null;
  let sql = null;
  const made = new Map();

  /** The cluster, started once per run in the run's directory (searchable by `postgres` when run as root). */
  async function database(name) {
    if (!cluster) {
      const { startEmbedded } = await import(path.join(ROOT, 'dist/src/embedded-postgres/embedded.js'));
      chmodSync(ctx.work, 0o755);
      const t = performance.now();
      cluster = await startEmbedded({ dir: path.join(ctx.work, 'pg'), timeoutMs: 120_000 });
      const { default: postgres } = await import('postgres');
      sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
      const [s] = await sql`select current_setting('fsync') as fsync, current_setting('synchronous_commit') as sc`;
      if (s.fsync !== 'on' || s.sc !== 'on') throw new Error(`the bench cluster is not durable: ${JSON.stringify(s)}`);
      notes.push(
        'PostgreSQL rows: the cluster is `embedded-postgres` on this machine, durable (fsync and synchronous_commit on); "server CPU/req" counts the wcm (or bare) process only, PostgreSQL shares the same cores.',
      );
      log(`PostgreSQL up in ${fmt.ms(performance.now() - t)} ms (fsync ${s.fsync}, synchronous_commit ${s.sc})`);
    }
    if (!made.has(name)) {
      await sql.unsafe(`create database ${name}`);
      const u = new URL(cluster.url);
      u.pathname = `/${name}`;
      made.set(name, u.toString());
    }
    return made.get(name);
  }

  /** A database seeded from fixtures by `wcm serve --store URL --seed …` (a bulk load: the base, no journal). */
  async function seeded(name, fixtures) {
    const fresh = !made.has(name);
    const url = await database(name);
    if (fresh) {
      const t = performance.now();
      await ctx.stopWcm(await ctx.startWcm(null, { store: url, seed: fixtures }));
      log(`seeded ${name} in ${fmt.ms(performance.now() - t)} ms`);
    }
    return url;
  }

  const p50Text = (r) =>
    `${fmt.rps(r.rps)} req/s, p50 ${fmt.ms(r.latency.p50)} ms, p99 ${fmt.ms(r.latency.p99)} ms, ${ctx.cpuText(r.cpuPerRequestMs)} server CPU/req`;

  const listingBody = JSON.stringify({
    title: 'Bench listing',
    template_slug: 'faq',
    items: [{ title: 'Hours?', description: 'Nine to five, Monday to Friday.' }],
  });
  const writeSpec = (s) => ({
    url: `${s.url}/workspaces/${ctx.data.workspaceId}/lists`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...ctx.auth() },
    body: listingBody,
  });
  const readSpec = (s) => ({ url: s.url + ctx.threadsPath(), headers: ctx.auth() });

  /** Durable createListing on PostgreSQL against the JSON store, alternating, both holding the listings. */
  async function write() {
    const url = await seeded('wcm_write', [ctx.data.listings.fixture]);
    const jsonFile = await ctx.prepareStore(ctx.data.listings.fixture, 'listings-pg');
    const pg = await ctx.startWcm(null, { store: url });
    const json = await ctx.startWcm(jsonFile);
    let pair;
    try {
      for (const s of [pg, json]) {
        const probe = await httpRequest(writeSpec(s).url, writeSpec(s));
        if (probe.status !== 201) throw new Error(`createListing answered ${probe.status}: ${probe.body}`);
      }
      ctx.sync();
      pair = await ctx.alternate({ server: pg, spec: writeSpec(pg) }, { server: json, spec: writeSpec(json) });
      ctx.checkLoad('wcm createListing (PostgreSQL)', pair.a);
      ctx.checkLoad('wcm createListing (JSON)', pair.b);
    } finally {
      await ctx.stopWcm(pg);
      await ctx.stopWcm(json);
    }
    const ratio = median(pair.ratios);
    log(`pg write: ${p50Text(pair.a)}; json: ${p50Text(pair.b)}; rounds ${pair.ratios.map(fmt.pct).join(' ')}`);
    row(
      `createListing, durable before the reply, ${fmt.n(ctx.data.listings.count)} listings stored, on PostgreSQL (embedded, fsync and synchronous_commit on): req/s, p50, p99`,
      p50Text(pair.a),
      `JSON store, alternating with it: ${p50Text(pair.b)}`,
      `${fmt.pct(ratio)} of the JSON store (median of ${pair.ratios.length} rounds, ${fmt.pct(Math.min(...pair.ratios))}–${fmt.pct(Math.max(...pair.ratios))})`,
      '≥ 25% of the JSON store',
      ratio >= 0.25,
    );
  }

  /** The read row's page on PostgreSQL, against the JSON store and a bare server doing one query per request. */
  async function read() {
    const url = await seeded('wcm_threads', [ctx.data.threads.fixture]);
    const jsonFile = ctx.threadsStore() ?? (await ctx.prepareStore(ctx.data.threads.fixture, 'threads'));
    const pg = await ctx.startWcm(null, { store: url });
    let body;
    let vsJson;
    let vsBare;
    try {
      const probe = await httpRequest(readSpec(pg).url, readSpec(pg));
      const ids = JSON.parse(probe.body).data?.map((t) => t.id);
      if (JSON.stringify(ids) !== JSON.stringify(ctx.data.threads.expectedIds))
        throw new Error(`PostgreSQL's page is not the expected page (${probe.status}: ${probe.body.slice(0, 200)})`);
      body = probe.body;
      const bare = await ctx.startFloor('pg-read', ctx.writeBody('pg-read-body.json', body), { WCM_BENCH_PG: url });
      try {
        await ctx.load(pg, { ...readSpec(pg), duration: 2 });
        vsBare = await ctx.alternate({ server: pg, spec: readSpec(pg) }, { server: bare, spec: readSpec(bare) });
      } finally {
        await ctx.stopServer(bare);
      }
      const json = await ctx.startWcm(jsonFile);
      try {
        await ctx.load(json, { ...readSpec(json), duration: 2 });
        vsJson = await ctx.alternate({ server: pg, spec: readSpec(pg) }, { server: json, spec: readSpec(json) });
      } finally {
        await ctx.stopWcm(json);
      }
    } finally {
      await ctx.stopWcm(pg);
    }
    for (const [w, r] of [
      ['pg', vsBare.a],
      ['bare', vsBare.b],
      ['pg', vsJson.a],
      ['json', vsJson.b],
    ])
      ctx.checkLoad(`listThreads (${w})`, r);
    const rBare = median(vsBare.ratios);
    const rJson = median(vsJson.ratios);
    log(
      `pg read: ${p50Text(vsBare.a)}; bare: ${p50Text(vsBare.b)}; json: ${p50Text(vsJson.b)}; rounds ${vsBare.ratios.map(fmt.pct).join(' ')} / ${vsJson.ratios.map(fmt.pct).join(' ')}`,
    );
    const q = ctx.data.threads.query;
    row(
      `list threads, one filtered page of 50 (\`view=${q.view}&channel=${q.channel}\`), ${fmt.n(ctx.data.threads.count)} threads, on PostgreSQL: req/s, p50, p99`,
      `${p50Text(vsBare.a)}<br>(against JSON: ${p50Text(vsJson.a)})`,
      `bare \`node:http\` + one query per request (newest journal row by primary key, then the same ${fmt.n(Buffer.byteLength(body))} B): ${p50Text(vsBare.b)}<br>JSON store: ${p50Text(vsJson.b)}`,
      `${fmt.pct(rBare)} of the bare server (rounds ${fmt.pct(Math.min(...vsBare.ratios))}–${fmt.pct(Math.max(...vsBare.ratios))})<br>${fmt.pct(rJson)} of the JSON store`,
      '≥ 50% of the bare server',
      rBare >= 0.5,
    );
  }

  /** The same filtered page over 1,000,000 threads (demo.json's workspace): sequential requests, median. */
  async function million() {
    const count = cfg.importThreads;
    const fixture = ctx.threadsFixture(count);
    // `wcm local import --store` streams the fixture (past the longest string V8 holds) into the base.
    const url = await database(`wcm_threads_${count}`);
    const imported = await ctx.runOnce(ctx.NODE, [ctx.WCM, 'local', 'import', ctx.DEMO, fixture], {
      env: { ...ctx.cliEnv, WCM_STORE: url },
    });
    if (imported.code !== 0)
      throw new Error(`wcm local import --store failed (${imported.code}): ${imported.stderr.slice(-500)}`);
    log(`pg 1M: imported in ${fmt.ms(imported.ms)} ms, peak RSS ${Math.round(imported.peakMB)} MB`);
    const t = performance.now();
    const pg = await ctx.startWcm(null, { store: url });
    const pagePath = `/workspaces/${DEMO_WS}/threads?view=inbox&channel=whatsapp&limit=50`;
    const headers = { authorization: `Bearer ${DEMO_OWNER}` };
    const times = [];
    let rss;
    try {
      const first = await httpRequest(pg.url + pagePath, { headers });
      const startMs = performance.now() - t;
      if (first.status !== 200) throw new Error(`the page answered ${first.status}: ${first.body.slice(0, 200)}`);
      const n = JSON.parse(first.body).data.length;
      if (n !== 50) throw new Error(`the page held ${n} threads, expected 50`);
      for (let i = 0; i < (cfg.quick ? 50 : 500); i++) {
        const t0 = performance.now();
        const r = await httpRequest(pg.url + pagePath, { headers });
        times.push(performance.now() - t0);
        if (r.status !== 200) throw new Error(`request ${i} answered ${r.status}`);
      }
      rss = ctx.memoryOf(pg.child.pid).rssMB;
      times.sort((a, b) => a - b);
      const m = median(times);
      const p99 = times[Math.floor(times.length * 0.99)];
      log(`pg 1M: median ${fmt.ms(m)} ms, p99 ${fmt.ms(p99)} ms; start to first page ${fmt.ms(startMs)} ms`);
      // `q` over the whole inbox: one that matches nothing (every thread of the view is a
      // candidate), one in a few threads (the fixture's threads are numbered per batch of 50,000,
      // so `#12345.` is in one message of each batch's thread 12345), one that fills a page.
      const searches = [
        ['no match', 'no-such-text-anywhere'],
        ['a few', '#12345.'],
        ['many', 'sunday'],
      ];
      const searched = [];
      for (const [what, q] of searches) {
        const qPath = `/workspaces/${DEMO_WS}/threads?view=inbox&limit=50&q=${encodeURIComponent(q)}`;
        const took = [];
        let found = 0;
        for (let i = 0; i < (cfg.quick ? 2 : 5); i++) {
          const t0 = performance.now();
          const r = await httpRequest(pg.url + qPath, { headers });
          took.push(performance.now() - t0);
          if (r.status !== 200) throw new Error(`q=${q} answered ${r.status}: ${r.body.slice(0, 200)}`);
          found = JSON.parse(r.body).data.length;
        }
        searched.push({ what, q, ms: median(took), max: Math.max(...took), found });
        log(
          `pg 1M: q=${q} (${what}): median ${fmt.ms(median(took))} ms, max ${fmt.ms(Math.max(...took))} ms, ${found} found`,
        );
      }
      row(
        `list threads with \`q\` (\`view=inbox&limit=50\`) over ${fmt.n(count)} threads on PostgreSQL, 5 requests one at a time: median, max`,
        searched
          .map((s) => `${s.what} (\`q=${s.q}\`, ${s.found} found): ${fmt.ms(s.ms)} ms, max ${fmt.ms(s.max)} ms`)
          .join('<br>'),
        '—',
        '—',
        'no match under 1 s',
        searched[0].ms < 1000,
      );
      row(
        `list threads, the filtered page of 50 (\`view=inbox&channel=whatsapp\`) over ${fmt.n(count)} threads on PostgreSQL, one request at a time: median, p99; start to first page; RSS`,
        `median ${fmt.ms(m)} ms, p99 ${fmt.ms(p99)} ms (${times.length} requests); ${(startMs / 1000).toFixed(1)} s; ${fmt.mb(rss)}<br>(\`wcm local import --store\` of the fixture: ${(imported.ms / 1000).toFixed(0)} s, peak RSS ${fmt.mb(imported.peakMB)})`,
        '—',
        '—',
        'median < 20 ms',
        m < 20,
      );
    } finally {
      await ctx.stopWcm(pg);
    }
  }

  /** Load split across two `wcm serve` processes on one database against the same load on one. */
  async function two() {
    const readsUrl = await seeded('wcm_threads', [ctx.data.threads.fixture]);
    const writesUrl = await seeded('wcm_write', [ctx.data.listings.fixture]);
    const out = [];
    for (const [what, dbUrl, spec] of [
      ['reads (the filtered page)', readsUrl, readSpec],
      ['writes (durable createListing)', writesUrl, writeSpec],
    ]) {
      const a = await ctx.startWcm(null, { store: dbUrl });
      const b = await ctx.startWcm(null, { store: dbUrl });
      try {
        for (const s of [a, b]) await ctx.load(s, { ...spec(s), duration: 2 });
        const half = cfg.connections / 2;
        const one = async (seconds) => ctx.load(a, { ...spec(a), duration: seconds });
        const both = async (seconds) => {
          const rs = await Promise.all(
            [a, b].map((s) => ctx.load(s, { ...spec(s), connections: half, duration: seconds })),
          );
          return {
            ok: rs[0].ok + rs[1].ok,
            non2xx: rs[0].non2xx + rs[1].non2xx,
            errors: rs[0].errors + rs[1].errors,
            statusCodes: rs[0].statusCodes,
            durationS: rs[0].durationS,
            rps: rs[0].rps + rs[1].rps,
          };
        };
        const seconds = Math.max(2, cfg.duration / 2);
        const ratios = [];
        const sums = { one: [], two: [] };
        for (let r = 0; r < (cfg.quick ? 2 : 6); r++) {
          const order = r % 2 ? ['two', 'one'] : ['one', 'two'];
          const got = {};
          for (const k of order) got[k] = k === 'one' ? await one(seconds) : await both(seconds);
          ctx.checkLoad(`two processes: ${what}, ${order.join('/')}`, got.two);
          ctx.checkLoad(`one process: ${what}`, got.one);
          sums.one.push(got.one.rps);
          sums.two.push(got.two.rps);
          ratios.push(got.two.rps / got.one.rps);
        }
        log(`pg two, ${what}: one ${sums.one.map(fmt.rps).join(' ')}; two ${sums.two.map(fmt.rps).join(' ')} req/s`);
        out.push({ what, one: median(sums.one), two: median(sums.two), ratios });
      } finally {
        await ctx.stopWcm(a);
        await ctx.stopWcm(b);
      }
    }
    row(
      `two \`wcm serve\` processes on one PostgreSQL database, load split between them (${cfg.connections / 2} connections each), against one process (${cfg.connections} connections): req/s`,
      out.map((o) => `${o.what}: ${fmt.rps(o.two)} req/s`).join('<br>'),
      out.map((o) => `one process: ${fmt.rps(o.one)} req/s`).join('<br>'),
      out
        .map(
          (o) => `${fmt.x(median(o.ratios))} (rounds ${fmt.x(Math.min(...o.ratios))}–${fmt.x(Math.max(...o.ratios))})`,
        )
        .join('<br>'),
      'printed (no target: 2 cores shared by both processes, PostgreSQL and the load generator)',
      null,
    );
  }

  /**
   * Durable writes from two `wcm serve` processes against one, each process behind its own TCP
   * proxy that holds every chunk 5 ms each way (10 ms a round trip), as a database on another host
   * would. The same total load either way, at two sizes: 10 connections (the other rows' load) and
   * 32 (enough to fill both processes' pools of 8). pg_locks is sampled every 100 ms meanwhile.
   */
  async function twoDelayed() {
    const DELAY_MS = 5;
    const url = await seeded('wcm_write', [ctx.data.listings.fixture]);
    const target = new URL(url);
    const proxies = [];
    const sampled = { one: newSample(), two: newSample() };
    let phase = null;
    const out = [];
    let a;
    let b;
    let sampler;
    try {
      for (let i = 0; i < 2; i++)
        proxies.push(await delayProxy({ host: target.hostname, port: Number(target.port) }, DELAY_MS));
      const via = (p) => {
        const u = new URL(url);
        u.port = String(p.port);
        return u.href;
      };
      a = await ctx.startWcm(null, { store: via(proxies[0]) });
      b = await ctx.startWcm(null, { store: via(proxies[1]) });
      for (const s of [a, b]) {
        const probe = await httpRequest(writeSpec(s).url, writeSpec(s));
        if (probe.status !== 201) throw new Error(`createListing answered ${probe.status}: ${probe.body}`);
      }
      const rtt = await roundTrip(via(proxies[0]));
      log(`pg two (delay): a query's round trip through the proxy ${fmt.ms(rtt)} ms`);
      let busy = false;
      sampler = setInterval(async () => {
        if (!phase || busy) return;
        busy = true;
        const into = sampled[phase];
        try {
          const [r] = await sql`select
              (select count(*) from pg_locks where locktype = 'advisory' and not granted)::int as adv_wait,
              (select count(*) from pg_locks where locktype = 'advisory' and granted)::int as adv_held,
              (select count(*) from pg_locks where not granted)::int as waiting,
              (select coalesce(json_object_agg(locktype, n), '{}') from
                (select locktype, count(*)::int as n from pg_locks where not granted group by 1) w) as by_type`;
          into.samples++;
          into.advWait = Math.max(into.advWait, r.adv_wait);
          into.advHeld = Math.max(into.advHeld, r.adv_held);
          into.waiting = Math.max(into.waiting, r.waiting);
          for (const [k, v] of Object.entries(r.by_type ?? {})) into.byType[k] = Math.max(into.byType[k] ?? 0, v);
        } catch (err) {
          into.errors++;
          log(`pg_locks sample failed: ${err.message}`);
        } finally {
          busy = false;
        }
      }, 100);
      for (const total of [cfg.connections, 32]) {
        for (const s of [a, b]) await ctx.load(s, { ...writeSpec(s), connections: total / 2, duration: 2 });
        const one = async (seconds) => {
          phase = 'one';
          try {
            return await ctx.load(a, { ...writeSpec(a), connections: total, duration: seconds });
          } finally {
            phase = null;
          }
        };
        const both = async (seconds) => {
          phase = 'two';
          try {
            const rs = await Promise.all(
              [a, b].map((s) => ctx.load(s, { ...writeSpec(s), connections: total / 2, duration: seconds })),
            );
            return {
              ok: rs[0].ok + rs[1].ok,
              non2xx: rs[0].non2xx + rs[1].non2xx,
              errors: rs[0].errors + rs[1].errors,
              statusCodes: { ...rs[0].statusCodes, ...rs[1].statusCodes },
              durationS: rs[0].durationS,
              rps: rs[0].rps + rs[1].rps,
              latency: { p50: Math.max(rs[0].latency.p50, rs[1].latency.p50) },
              cpuPerRequestMs: (rs[0].cpuPerRequestMs + rs[1].cpuPerRequestMs) / 2,
            };
          } finally {
            phase = null;
          }
        };
        const seconds = Math.max(2, cfg.duration / 2);
        const ratios = [];
        const sums = { one: [], two: [], p50one: [], p50two: [] };
        for (let r = 0; r < (cfg.quick ? 2 : 6); r++) {
          const order = r % 2 ? ['two', 'one'] : ['one', 'two'];
          const got = {};
          for (const k of order) got[k] = k === 'one' ? await one(seconds) : await both(seconds);
          ctx.checkLoad(`two processes, 5 ms away: writes, ${total} connections`, got.two);
          ctx.checkLoad(`one process, 5 ms away: writes, ${total} connections`, got.one);
          sums.one.push(got.one.rps);
          sums.two.push(got.two.rps);
          sums.p50one.push(got.one.latency.p50);
          sums.p50two.push(got.two.latency.p50);
          ratios.push(got.two.rps / got.one.rps);
        }
        log(
          `pg two (delay ${DELAY_MS} ms each way), ${total} connections: one ${sums.one.map(fmt.rps).join(' ')}; two ${sums.two.map(fmt.rps).join(' ')} req/s; ratios ${ratios.map(fmt.x).join(' ')}`,
        );
        out.push({
          total,
          one: median(sums.one),
          two: median(sums.two),
          p50one: median(sums.p50one),
          p50two: median(sums.p50two),
          ratios,
        });
      }
      out.rtt = rtt;
    } finally {
      clearInterval(sampler);
      phase = null;
      if (a) await ctx.stopWcm(a);
      if (b) await ctx.stopWcm(b);
      for (const p of proxies) await p.close();
    }
    const t = sampled.two;
    log(
      `pg_locks during the two-process windows: ${JSON.stringify(t)}; one-process windows: ${JSON.stringify(sampled.one)}`,
    );
    const ratio = median(out.at(-1).ratios);
    const byType = (s) =>
      Object.entries(s.byType)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none';
    row(
      `durable createListing from two \`wcm serve\` processes on one PostgreSQL database, each behind a proxy adding ${DELAY_MS} ms each way (a query's round trip ${fmt.ms(out.rtt)} ms), the load split between them, against the same load on one process: req/s (p50)`,
      out.map((o) => `${o.total} connections: ${fmt.rps(o.two)} req/s (p50 ${fmt.ms(o.p50two)} ms)`).join('<br>'),
      out
        .map((o) => `one process, ${o.total} connections: ${fmt.rps(o.one)} req/s (p50 ${fmt.ms(o.p50one)} ms)`)
        .join('<br>') +
        `<br>pg_locks every 100 ms in the two-process windows (${t.samples} samples): advisory locks waiting at most ${t.advWait}, held at most ${t.advHeld}; any lock waiting at most ${t.waiting} (by type: ${byType(t)})`,
      out
        .map(
          (o) =>
            `${o.total} connections: ${fmt.x(median(o.ratios))} (rounds ${fmt.x(Math.min(...o.ratios))}–${fmt.x(Math.max(...o.ratios))})`,
        )
        .join('<br>') + `<br>advisory waits: ${t.advWait}`,
      `≥ 1.7× at 32 connections; 0 advisory-lock waits`,
      ratio >= 1.7 && t.advWait === 0 && t.samples > 0,
    );
  }

  function newSample() {
    return { samples: 0, errors: 0, advWait: 0, advHeld: 0, waiting: 0, byType: {} };
  }

  /** The median time of `select 1` over `storeUrl`, on a connection of its own. */
  async function roundTrip(storeUrl) {
    const { default: postgres } = await import('postgres');
    const c = postgres(storeUrl, { max: 1, onnotice: () => {} });
    try {
      await c`select 1`;
      const times = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        await c`select 1`;
        times.push(performance.now() - t0);
      }
      return median(times);
    } finally {
      await c.end({ timeout: 5 });
    }
  }

  /**
   * RSS of `wcm serve` on a PostgreSQL schema holding many users (300k tokens, 100k OAuth grants,
   * 100k users, on top of the demo) against the same serve on the demo alone: at its first answer
   * and after a read load that authenticates every request with another token.
   */
  async function rss() {
    const users = cfg.quick ? 10_000 : 100_000;
    const big = await writeAuthFixture(path.join(cfg.dir, `auth-${users}.json`), users);
    const t = performance.now();
    const bigUrl = await seeded(`wcm_auth_${users}`, [ctx.DEMO, big]);
    log(`pg rss: the ${fmt.n(users)}-user schema ready in ${fmt.ms(performance.now() - t)} ms`);
    const demoUrl = await seeded('wcm_demo', [ctx.DEMO]);
    const probeUser = benchUser(users - 1);
    const sides = {
      demo: { url: demoUrl, rotate: { token: DEMO_OWNER, ws: DEMO_WS }, probe: { token: DEMO_OWNER, ws: DEMO_WS } },
      big: { url: bigUrl, rotate: { users }, probe: { token: probeUser.tokens[2], ws: probeUser.ws } },
    };
    const seconds = cfg.quick ? 3 : 10;
    const rounds = cfg.quick ? 1 : 3;
    const got = { demo: [], big: [] };
    for (let r = 0; r < rounds; r++) {
      for (const name of r % 2 ? ['big', 'demo'] : ['demo', 'big']) {
        const side = sides[name];
        const s = await ctx.startWcm(null, { store: side.url });
        try {
          const first = await httpRequest(`${s.url}/workspaces/${side.probe.ws}/lists?limit=20`, {
            headers: { authorization: `Bearer ${side.probe.token}` },
          });
          if (first.status !== 200) throw new Error(`${name}: the first read answered ${first.status}: ${first.body}`);
          const atFirst = ctx.memoryOf(s.child.pid);
          const l = await ctx.load(s, { url: s.url, rotate: side.rotate, duration: seconds });
          ctx.checkLoad(`pg rss: ${name} reads`, l);
          const after = ctx.memoryOf(s.child.pid);
          got[name].push({ first: atFirst.rssMB, after: after.rssMB, peak: after.hwmMB, rps: l.rps, ok: l.ok });
          log(
            `pg rss ${name}: first answer ${fmt.mb(atFirst.rssMB)}, after ${l.ok} reads (${fmt.rps(l.rps)} req/s) ${fmt.mb(after.rssMB)}, peak ${fmt.mb(after.hwmMB)}`,
          );
        } finally {
          await ctx.stopWcm(s);
        }
      }
    }
    const m = (name, k) => median(got[name].map((g) => g[k]));
    const rFirst = m('big', 'first') / m('demo', 'first');
    const rAfter = m('big', 'after') / m('demo', 'after');
    const text = (name) =>
      `first answer ${fmt.mb(m(name, 'first'))}; after ${seconds} s of reads ${fmt.mb(m(name, 'after'))} (peak ${fmt.mb(m(name, 'peak'))}; ${fmt.rps(m(name, 'rps'))} req/s)`;
    row(
      `\`wcm serve\` on PostgreSQL holding ${fmt.n(users * 3)} tokens, ${fmt.n(users)} OAuth grants and ${fmt.n(users)} users (and the demo): RSS at the first answer and after reads that each authenticate with another token (the users in a scattered order, 2 personal tokens and 1 OAuth token each), median of ${rounds} starts`,
      text('big'),
      `the same serve on the demo fixture alone (one token): ${text('demo')}`,
      `${fmt.x(rFirst)} at the first answer, ${fmt.x(rAfter)} after the reads`,
      '≤ 1.25× the demo store’s',
      rFirst <= 1.25 && rAfter <= 1.25,
    );
  }

  return {
    sections: {
      'pg-write': write,
      'pg-read': read,
      'pg-1m': million,
      'pg-two': two,
      'pg-two-delay': twoDelayed,
      'pg-rss': rss,
    },
    async close() {
      await sql?.end({ timeout: 5 });
      await cluster?.stop();
    },
  };
}
