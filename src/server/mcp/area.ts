import type { Register } from '../area.js';
import { mcpMount } from './mount.js';

/** `/mcp`: the operations as MCP tools, dispatched in-process. */
export const register: Register = (s) => {
  s.mounts.push(mcpMount({ store: s.store, clock: s.clock }));
};
