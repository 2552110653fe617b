import type { Register } from '../area.js';
import { mcpRoutes } from './mount.js';

/** `/mcp`: the operations as MCP tools, dispatched in-process. */
export const register: Register = (s) => {
  s.routes.push(mcpRoutes({ store: s.store, clock: s.clock }));
};
