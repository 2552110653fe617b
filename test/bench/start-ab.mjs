#!/usr/bin/env node
// Same-moment A/B of a server's start, for work on the start-up and seed paths: each checkout's
// `wcm serve` is started in turn (the order flips every round), and the time to its first answered
// request is printed with the server's CPU time at that moment, which a busy host disturbs far
// less than the wall time. With --seed (a bench fixture: its token writes), also the time to the
// first write acknowledged: the seed's snapshot is written after the first answer, and writes wait for it.
//
//   node test/bench/start-ab.mjs --seed FIXTURE [--runs 4] CHECKOUT...   `serve --seed` into an empty store
//   node test/bench/start-ab.mjs --data FILE [--runs 4] CHECKOUT...      a restart on (a copy of) a data file
//
// Each CHECKOUT must be built (`npm run build` there).
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accounts } from './datasets.mjs';
import { cpuTimeOf, httpRequest, median, memoryOf, startServer, stopServer } from './procs.mjs';

const argv = process.argv.slice(2);
const opt = (name) => (argv.includes(`--${name}`) ? argv.splice(argv.indexOf(`--${name}`), 2)[1] : undefined);
const seed = opt('seed');
const data = opt('data');
const runs = Number(opt('runs') ?? 4);
const sides = argv.map((c) => path.resolve(c));
if (!sides.length || !!seed === !!data) {
  console.error('usage: start-ab.mjs (--seed FIXTURE | --data FILE) [--runs N] CHECKOUT...');
  process.exit(2);
}
const work = mkdtempSync(path.join(os.tmpdir(), 'wcm-start-ab-'));
const results = new Map(sides.map((s) => [s, []]));
try {
  for (let r = 0; r < runs; r++)
    for (const [i, side] of (r % 2 ? [...sides].reverse() : sides).entries()) {
      const dir = path.join(work, `${r}-${i}`);
      mkdirSync(dir);
      const file = path.join(dir, 'store.json');
      if (data) cpSync(data, file);
      const s = await startServer(
        process.execPath,
        [path.join(side, 'bin/wcm.js'), 'serve', '--port', '0', '--data', file, ...(seed ? ['--seed', seed] : [])],
        {
          env: {
            WCM_CONFIG_DIR: path.join(dir, 'config'),
            NO_COLOR: '1',
            WCM_ADMIN_TOKEN: `wcm_admin_${'b'.repeat(32)}`,
          },
          ready: /wcm listening on (\S+)/,
          timeoutMs: 300_000,
          name: 'wcm serve',
        },
      );
      await httpRequest(`${s.match[1]}/workspaces/x/threads?limit=1`, { headers: { authorization: 'Bearer x' } });
      const wall = performance.now() - s.t0;
      const cpu = cpuTimeOf(s.child.pid);
      const { rssMB, hwmMB } = memoryOf(s.child.pid);
      const w = seed ? await firstWrite(s.match[1], s.t0, s.child.pid) : undefined;
      await stopServer(s);
      rmSync(dir, { recursive: true, force: true });
      results.get(side).push({ wall, cpu, rssMB, hwmMB, ...w });
      console.log(
        `${side} round ${r + 1}: ${wall.toFixed(0)} ms to the first answer, ${cpu.toFixed(0)} ms CPU, RSS ${rssMB.toFixed(0)} MB (peak ${hwmMB.toFixed(0)})` +
          (w ? `; ${w.writeWall.toFixed(0)} ms to the first write, ${w.writeCpu.toFixed(0)} ms CPU` : ''),
      );
    }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const span = (xs) => `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
for (const [side, rs] of results) {
  console.log(
    `${side}: wall ${span(rs.map((x) => x.wall))}, CPU ${span(rs.map((x) => x.cpu))}, RSS at the first answer ${span(rs.map((x) => x.rssMB)).replace(/ ms/, ' MB')}, peak ${span(rs.map((x) => x.hwmMB)).replace(/ ms/, ' MB')}`,
  );
  if (rs.every((x) => x.writeWall !== undefined))
    console.log(
      `${side}: to the first write, wall ${span(rs.map((x) => x.writeWall))}, CPU ${span(rs.map((x) => x.writeCpu))}`,
    );
}

/** A createListing with the bench fixtures' token: acknowledged once durable. */
async function firstWrite(url, t0, pid) {
  const { token, workspaceId } = accounts();
  const res = await httpRequest(`${url}/workspaces/${workspaceId}/lists`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'After the seed', template_slug: 'faq' }),
  });
  if (res.status !== 201) throw new Error(`the first write answered ${res.status} (not a bench fixture?): ${res.body}`);
  return { writeWall: performance.now() - t0, writeCpu: cpuTimeOf(pid) };
}
