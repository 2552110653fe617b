import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App, type Call, type Middleware } from '../../src/server/app.js';
import { dashboardArea } from '../../src/server/dashboard/area.js';
import { emulatorArea } from '../../src/server/emulator/area.js';
import { limitsArea as limits, orderAreas } from '../../src/server/extend.js';
import { mcpArea } from '../../src/server/mcp/area.js';
import { oauthArea } from '../../src/server/oauth/area.js';
import { paymentsArea } from '../../src/server/payments/area.js';
import { webArea } from '../../src/server/web/area.js';
import { demo, inProcess, sendJson, type InProcess } from '../support/server.js';

describe('areas declare what they need', () => {
  it('an area registers after the areas providing what it needs, whatever the order of the list', () => {
    const order = orderAreas([dashboardArea, oauthArea, mcpArea, emulatorArea, webArea, limits, paymentsArea]).map(
      (a) => a.name,
    );
    const before = (a: string, b: string) =>
      expect(order.indexOf(a), `${a} before ${b} in ${order}`).toBeLessThan(order.indexOf(b));
    before('web', 'dashboard');
    before('emulator', 'dashboard');
    before('web', 'oauth');
    before('limits', 'oauth');
    before('payments', 'emulator');
    expect(order).toHaveLength(7);
  });

  it('keeps the order of the list where needs allow it (middleware runs in that order)', () => {
    const list = [paymentsArea, emulatorArea, limits, webArea, dashboardArea, oauthArea, mcpArea];
    expect(orderAreas(list)).toEqual(list);
  });

  it('a need no area provides stops the start, naming the area and the service', () => {
    expect(() => orderAreas([dashboardArea, webArea])).toThrow(
      'No area provides what these need: dashboard (requestLog).',
    );
  });
});

describe('one middleware type over one call', () => {
  let t: InProcess;
  beforeAll(async () => {
    t = await inProcess();
  });
  afterAll(() => t.close());

  it('a step around every request sees, on the way out, the operation and the caller the operation steps found', async () => {
    const seen: string[] = [];
    const observe: Middleware<Call> = async (x, next) => {
      const res = await next(x);
      seen.push(`${x.op?.operationId} ${x.auth?.user.id} ${res.status}`);
      return res;
    };
    const tag: Middleware = async (x, next) => {
      x.headers['X-Operation'] = x.op.operationId;
      return next(x);
    };
    const app = new App({ db: t.db, around: [observe], use: [tag] });
    const res = await sendJson(app, { url: `/v1/workspaces/${demo.ws1}/lists?limit=1`, token: demo.owner });
    expect(res.status).toBe(200);
    expect(res.headers['X-Operation']).toBe('listListings');
    expect(seen).toEqual(['listListings usr_ada 200']);
  });
});
