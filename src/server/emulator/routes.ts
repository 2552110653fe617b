import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppResponse, Call, Middleware, RouteHandler, Routes } from '../app.js';
import { guarded } from '../chain.js';
import { ProblemError, validationFailed } from '../problems.js';
import { header } from '../request.js';
import { clockOffset, CONTROL, logFilter, parseFaults, readJson, type ControlOptions } from './control.js';
import { eventStream, streamsBusy } from './log.js';
import { deleteSnapshot, listSnapshots, resetState, saveSnapshot } from './state.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The control plane is for the admin token only: every path under it, known or not, asks for it first. */
function adminOnly(admin: string): Middleware<Call> {
  const adminDigest = digest(admin);
  return (x, next) => {
    const auth = header(x.info.headers, 'authorization');
    const m = auth ? /^Bearer +(\S+) *$/i.exec(auth) : null;
    if (!m || !timingSafeEqual(digest(m[1]), adminDigest)) {
      throw new ProblemError(m ? 'invalid_token' : 'unauthenticated', {
        detail: 'The control plane needs the admin token (`wcm serve` prints it; WCM_ADMIN_TOKEN sets it).',
        headers: { 'WWW-Authenticate': 'Bearer realm="wcm-emulator"' },
      });
    }
    return next(x);
  };
}

const json = (x: Call, status: number, data: unknown): AppResponse =>
  x.app.json(status, { data }, x.info, { 'Cache-Control': 'no-store' });

/**
 * `/_emulator/…` (docs/server.md: Controlling a running server): reset, snapshots, faults, clock and the request log, for the
 * admin token only. Not part of /v1 and never subject to injected faults.
 */
export function controlRoutes(o: ControlOptions): Routes {
  const admin = [adminOnly(o.admin)];
  const routes: Array<[string, string, RouteHandler]> = [
    ['POST', '/reset', (x) => reset(o, x)],
    ['GET', '/snapshots', async (x) => json(x, 200, await listSnapshots(o.db))],
    [
      'POST',
      '/snapshots',
      async (x) => json(x, 201, await saveSnapshot(o.db, (readJson(x.info) as { name?: unknown })?.name)),
    ],
    ['DELETE', '/snapshots/{name}', (x) => dropSnapshot(o, x)],
    [
      'PUT',
      '/faults',
      (x) => (o.faults.splice(0, o.faults.length, ...parseFaults(readJson(x.info))), json(x, 200, o.faults)),
    ],
    ['GET', '/faults', (x) => json(x, 200, o.faults)],
    ['DELETE', '/faults', (x) => ((o.faults.length = 0), json(x, 200, []))],
    ['GET', '/webhook-secret', (x) => webhookSecret(o, x)],
    ['GET', '/clock', async (x) => json(x, 200, await o.clock.state())],
    [
      'PUT',
      '/clock',
      async (x) => {
        const body = readJson(x.info);
        // The real time is the store's clock without the offset (the database's on PostgreSQL).
        const { nowMs, offsetMs } = await o.clock.read();
        await o.clock.setOffset(clockOffset(body, nowMs - offsetMs));
        return json(x, 200, await o.clock.state());
      },
    ],
    ['DELETE', '/clock', async (x) => (await o.clock.reset(), json(x, 200, await o.clock.state()))],
    [
      'GET',
      '/requests',
      (x) => json(x, 200, o.log.query({ limit: 100, ...logFilter(new URL(x.req.url, 'http://x')) })),
    ],
    ['GET', '/requests/stream', (x) => requestStream(o, x)],
  ];
  return (r) => {
    for (const [method, path, handler] of routes) r.on(method, `${CONTROL}${path}`, guarded(admin, handler));
    // Anything else, any method: after the admin token, a 404 that lists what there is.
    r.mount(
      CONTROL,
      guarded(admin, (x) => {
        throw new ProblemError('route_not_found', {
          detail: `No control route \`${x.info.method} ${x.info.path.slice(CONTROL.length) || '/'}\`: reset, snapshots, faults, clock, requests, webhook-secret.`,
        });
      }),
    );
  };
}

async function reset(o: ControlOptions, x: Call): Promise<AppResponse> {
  const body = readJson(x.info) as { to?: unknown };
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw validationFailed({ to: ['Send {"to": "empty" | "seed" | "<snapshot>"}.'] });
  const started = performance.now();
  const counts = await resetState(o.db, body.to ?? 'empty');
  await o.afterReset();
  return json(x, 200, {
    to: body.to ?? 'empty',
    records: counts,
    duration_ms: Math.round(performance.now() - started),
  });
}

async function dropSnapshot(o: ControlOptions, x: Call): Promise<AppResponse> {
  // The segment as sent: the name is decoded once, here, where a bad escape is the client's 400.
  const name = snapshotName(x.info.path.slice(`${CONTROL}/snapshots/`.length));
  await deleteSnapshot(o.db, name);
  return json(x, 200, { name, deleted: true });
}

function webhookSecret(o: ControlOptions, x: Call): AppResponse {
  if (!o.webhookSecret)
    throw new ProblemError('route_not_found', { detail: 'This server has no payment-notification signing secret.' });
  return json(x, 200, { secret: o.webhookSecret });
}

function requestStream(o: ControlOptions, x: Call): AppResponse {
  const f = logFilter(new URL(x.req.url, 'http://x'));
  if (o.log.full) throw streamsBusy();
  return eventStream(x.info.id, (res) => o.log.stream(res, f));
}

/** A snapshot name from the path, percent-decoded; a malformed escape (`%`, `%E0%A4%A`) is a 400, not a crash. */
function snapshotName(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ProblemError('bad_request', {
      detail: `The snapshot name \`${segment}\` in the path is not valid percent-encoding.`,
      resolution: 'Percent-encode the name (encodeURIComponent), or use the name `GET /_emulator/snapshots` lists.',
    });
  }
}
