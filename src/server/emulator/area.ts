import { defineArea } from '../area.js';
import type { Call, Middleware } from '../chain.js';
import { MovableClock } from './clock.js';
import { adminToken, injectFault, type FaultRule } from './control.js';
import { RequestLog } from './log.js';
import { LOGGED_BODY_BYTES, maskBody } from './mask.js';
import { controlRoutes } from './routes.js';

/**
 * The control plane (docs/server.md: Controlling a running server): admin token, request log (a
 * middleware around every request), injected faults (the first middleware of every operation: an
 * injected answer replaces everything), the movable clock.
 * Needs the payments area's webhook secret.
 */
export const emulatorArea = defineArea({
  name: 'emulator',
  needs: ['webhookSecret'],
  provides: ['requestLog', 'adminToken'],
  async register(s) {
    const { db, clock, options } = s;
    const admin = await adminToken(db, s.env);
    const log = new RequestLog(!!options.logBodies);
    const movable = clock instanceof MovableClock ? clock : undefined;
    // The clock's offset is a setting of the store: read now, and whenever the control plane moves it.
    const control = movable ?? new MovableClock(clock);
    await control.attach(db);
    const faults: FaultRule[] = [];
    s.routes.push(
      controlRoutes({
        db,
        clock: control,
        log,
        admin: admin.token,
        faults,
        webhookSecret: s.services.webhookSecret,
        afterReset: () => s.services.rateLimiter?.reset(),
      }),
    );
    const fault: Middleware = async (x, next) =>
      faults.length ? ((await injectFault(faults, x.op.operationId)) ?? next(x)) : next(x);
    s.use.push(fault);
    const record: Middleware<Call> = async (x, next) => {
      const startedAt = performance.now();
      const res = await next(x);
      const { info } = x;
      // Reading the log (control plane, the dashboard's log page) is not logged: it would fill it.
      if (
        info.path.startsWith('/_emulator') ||
        info.path.startsWith('/dashboard/requests') ||
        info.path.startsWith('/assets/')
      )
        return res;
      let problem: string | null = null;
      if (res.status >= 400 && res.body) problem = /"code":"([^"]+)"/.exec(res.body)?.[1] ?? null;
      log.record(
        movable ? movable.nowMs() : clock.now().getTime(),
        info.method,
        info.path,
        x.op?.operationId ?? null,
        res.status,
        Math.round((performance.now() - startedAt) * 100) / 100,
        info.id,
        problem,
        info.remoteAddress,
        // Only the part the log keeps is decoded and read (docs/security.md: `--log-bodies` masking).
        log.logBodies && info.rawBody.length
          ? maskBody(info.rawBody.toString('utf8', 0, Math.min(info.rawBody.length, LOGGED_BODY_BYTES)))
          : undefined,
      );
      return res;
    };
    s.around.push(record);
    s.services.requestLog = log;
    s.services.adminToken = admin.token;
    s.secrets.admin = admin.source;
  },
});
