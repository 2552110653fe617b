// Processes for the benchmark: servers started and stopped by pid, wall times of short commands,
// peak RSS of a child, load runs in a second process, and plain HTTP probes.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const running = new Set();

/** Every server this run started is stopped when the run ends, however it ends. */
function killAll() {
  for (const child of running) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      /* gone already, or not there: nothing to do */
    }
  }
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

/**
 * Starts a long-running process and resolves once a stdout line matches `ready` (or `probe`
 * resolves true). Resolves with the child, the match and the ms from spawn to ready.
 */
export function startServer(
  cmd,
  args,
  { env, cwd, ready, probe, timeoutMs = 120_000, name = path.basename(args[0] ?? cmd) } = {},
) {
  const t0 = performance.now();
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-8000)));
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          /* gone already, or not there: nothing to do */
        }
        reject(err);
      } else resolve(value);
    };
    const timer = setTimeout(
      () => finish(new Error(`${name} was not ready after ${timeoutMs} ms.\nstderr: ${stderr}`)),
      timeoutMs,
    );
    child.on('exit', (code, sig) => {
      running.delete(child);
      finish(
        new Error(
          `${name} exited (${code ?? sig}) before it was ready.\nstdout: ${stdout.slice(-2000)}\nstderr: ${stderr}`,
        ),
      );
    });
    child.stdout.on('data', (d) => {
      stdout += d;
      if (ready && !done) {
        const m = stdout.match(ready);
        if (m)
          finish(null, {
            child,
            match: m,
            readyMs: performance.now() - t0,
            t0,
            stdout: () => stdout,
            stderr: () => stderr,
          });
      }
    });
    if (probe) {
      const poll = async () => {
        while (!done) {
          if (await probe().catch(() => false))
            return finish(null, {
              child,
              match: null,
              readyMs: performance.now() - t0,
              t0,
              stdout: () => stdout,
              stderr: () => stderr,
            });
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      void poll();
    }
  });
}

/** Sends `signal` to the child by its pid and waits for it to exit (SIGKILL after `timeoutMs`). */
export async function stopServer(server, { signal = 'SIGTERM', timeoutMs = 120_000 } = {}) {
  const child = server.child ?? server;
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, ms: 0 };
  const t0 = performance.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        /* gone already, or not there: nothing to do */
      }
    }, timeoutMs);
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code: code ?? sig, ms: performance.now() - t0 });
    });
    try {
      process.kill(child.pid, signal);
    } catch {
      /* gone already, or not there: nothing to do */
    }
  });
}

/** Resident and peak resident set size of a live process, in MB (Linux /proc). */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(status.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
    return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024 };
  } catch {
    return { rssMB: NaN, hwmMB: NaN };
  }
}

/** CPU time (user + system) a live process has used so far, in ms (Linux /proc; 10 ms ticks). */
export function cpuTimeOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(r.stdout?.trim()) || 100;
})();

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One request with node:http (no fetch: its first use loads undici, which would skew start-up timings). */
export function httpRequest(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, headers: body ? { 'content-length': Buffer.byteLength(body), ...headers } : headers, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Runs autocannon in a second process against `spec.url` and resolves with its summary
 * (requests/s counted from 2xx answers, latency percentiles in ms).
 */
export function runLoad(spec) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(HERE, 'load.mjs'), JSON.stringify(spec)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      running.delete(child);
      if (code !== 0) return reject(new Error(`the load generator failed (${code}): ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch (e) {
        reject(new Error(`the load generator printed no result: ${out.slice(-500)} ${err.slice(-500)}`));
      }
    });
  });
}

let timeBinary;
/** GNU time, when present, reports a child's peak RSS without polling. */
function gnuTime() {
  if (timeBinary !== undefined) return timeBinary;
  timeBinary = null;
  if (existsSync('/usr/bin/time')) {
    const r = spawnSync('/usr/bin/time', ['-f', 'WCM_BENCH_TIME %M %U %S', process.execPath, '-e', '0'], {
      encoding: 'utf8',
    });
    if (r.status === 0 && /WCM_BENCH_TIME \d+ [\d.]+ [\d.]+/.test(r.stderr)) timeBinary = '/usr/bin/time';
  }
  return timeBinary;
}

export function peakRssMethod() {
  return gnuTime() ? '/usr/bin/time' : '/proc VmHWM polling';
}

/**
 * Runs a command once; resolves with its wall time (ms), CPU time (user + system, ms), exit code,
 * stderr and peak RSS (MB). stdout goes to `stdoutFile` (or /dev/null). With GNU time present every
 * command runs under it (the same small cost for every command compared), which gives CPU time and
 * peak RSS; without it, peak RSS comes from polling /proc/PID/status VmHWM and CPU time is unknown.
 */
export function runOnce(cmd, args, { env, cwd, stdoutFile, measureRss = false } = {}) {
  const fd = openSync(stdoutFile ?? '/dev/null', 'w');
  const time = gnuTime();
  const [c, a] = time ? [time, ['-f', 'WCM_BENCH_TIME %M %U %S', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(c, a, { env: { ...process.env, ...env }, cwd, stdio: ['ignore', fd, 'pipe'] });
    running.add(child);
    let stderr = '';
    let hwm = 0;
    const poll =
      measureRss && !time ? setInterval(() => (hwm = Math.max(hwm, memoryOf(child.pid).hwmMB || 0)), 5) : null;
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      running.delete(child);
      if (poll) clearInterval(poll);
      closeSync(fd);
      let peakMB = measureRss ? hwm : NaN;
      let cpuMs = NaN;
      const m = stderr.match(/WCM_BENCH_TIME (\d+) ([\d.]+) ([\d.]+)/);
      if (m) {
        peakMB = Number(m[1]) / 1024;
        cpuMs = (Number(m[2]) + Number(m[3])) * 1000;
        stderr = stderr.replace(/(Command exited with non-zero status \d+\n)?WCM_BENCH_TIME .*\n?/, '');
      }
      resolve({ ms, cpuMs, code, stderr, peakMB });
    });
  });
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN;
};

/**
 * Wall time of a short command: one warm-up run (file cache), then `runs` runs; the median wall
 * and CPU times, the spread, and the largest peak RSS seen. Throws if any run fails.
 */
export async function wallTime(cmd, args, { runs, check, ...opts }) {
  const warm = await runOnce(cmd, args, opts);
  if (warm.code !== 0)
    throw new Error(`\`${[cmd, ...args].join(' ')}\` exited ${warm.code}: ${warm.stderr.slice(-1000)}`);
  if (check) check();
  const ms = [];
  const cpu = [];
  let peakMB = NaN;
  for (let i = 0; i < runs; i++) {
    const r = await runOnce(cmd, args, opts);
    if (r.code !== 0) throw new Error(`\`${[cmd, ...args].join(' ')}\` exited ${r.code}: ${r.stderr.slice(-1000)}`);
    ms.push(r.ms);
    cpu.push(r.cpuMs);
    if (!Number.isNaN(r.peakMB)) peakMB = Number.isNaN(peakMB) ? r.peakMB : Math.max(peakMB, r.peakMB);
  }
  return {
    medianMs: median(ms),
    cpuMs: median(cpu),
    minMs: Math.min(...ms),
    maxMs: Math.max(...ms),
    runs: ms.length,
    peakMB,
  };
}

/**
 * Signs in to a loopback server's dashboard as `user` through the account chooser (as a browser
 * would: the form's CSRF cookie and field, then the POST). Returns the session cookie, or null when
 * the server has no dashboard (404).
 */
export async function dashboardSignIn(origin, user = 'usr_bench_1') {
  const signIn = `${origin}/dashboard/sign-in`;
  const form = await httpRequest(signIn);
  if (form.status === 404) return null;
  const csrfCookie = String(form.headers['set-cookie']).split(';')[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(form.body.toString())[1];
  const signed = await httpRequest(signIn, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
    body: `csrf=${csrf}&user=${user}`,
  });
  if (signed.status !== 303) throw new Error(`dashboard sign-in answered ${signed.status}`);
  return String(signed.headers['set-cookie']).split(';')[0];
}
