import { defineArea } from '../area.js';
import { mcpRoutes } from './mount.js';

/** `/mcp`: the operations as MCP tools, dispatched in-process. */
export const mcpArea = defineArea({
  name: 'mcp',
  needs: [],
  provides: [],
  register(s) {
    s.routes.push(mcpRoutes());
  },
});
