import { defineArea } from '../area.js';
import { dashboardRoutes } from './mount.js';
import { REQUESTS_JS } from './pages/requests.js';

/** The dashboard's pages; needs the web area's sessions and the emulator's request log. */
export const dashboardArea = defineArea({
  name: 'dashboard',
  needs: ['sessions', 'requestLog', 'loopback'],
  provides: [],
  register(s) {
    s.assets['requests.js'] = { type: 'text/javascript; charset=utf-8', body: REQUESTS_JS };
    const { services } = s;
    s.routes.push(
      dashboardRoutes({
        sessions: services.sessions,
        loopback: services.loopback,
        requestLog: services.requestLog,
      }),
    );
  },
});
