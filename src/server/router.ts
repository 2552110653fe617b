import type { AnyOperation } from '../contract/operations.js';

interface Route {
  pattern: RegExp;
  names: string[];
  byMethod: Map<string, AnyOperation>;
}

export type Match =
  | { kind: 'ok'; op: AnyOperation; params: Record<string, string> }
  | { kind: 'method'; allow: string[] }
  | { kind: 'none' };

/** Matches paths (relative to the base address) to operations of the table. */
export class Router {
  private readonly routes: Route[] = [];

  constructor(ops: Iterable<AnyOperation>) {
    const byPath = new Map<string, Route>();
    for (const op of ops) {
      let route = byPath.get(op.path);
      if (!route) {
        const names: string[] = [];
        const src = op.path
          .split('/')
          .map((seg) => {
            const m = /^\{(\w+)\}$/.exec(seg);
            if (!m) return seg.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
            names.push(m[1]);
            return '([^/]+)';
          })
          .join('/');
        route = { pattern: new RegExp(`^${src}/?$`), names, byMethod: new Map() };
        byPath.set(op.path, route);
        this.routes.push(route);
      }
      route.byMethod.set(op.method, op);
    }
  }

  match(method: string, path: string): Match {
    for (const route of this.routes) {
      const m = route.pattern.exec(path);
      if (!m) continue;
      // HEAD is GET without the body (the adapter drops it).
      const op = route.byMethod.get(method) ?? (method === 'HEAD' ? route.byMethod.get('GET') : undefined);
      if (!op) {
        const allow = [...route.byMethod.keys()];
        return { kind: 'method', allow: allow.includes('GET') ? [...allow, 'HEAD'] : allow };
      }
      const params: Record<string, string> = {};
      for (let i = 0; i < route.names.length; i++) {
        const raw = m[i + 1];
        params[route.names[i]] = raw.includes('%') ? decodeOr(raw) : raw;
      }
      return { kind: 'ok', op, params };
    }
    return { kind: 'none' };
  }
}

/** The percent-decoded segment, or the segment as sent when it does not decode. */
function decodeOr(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
