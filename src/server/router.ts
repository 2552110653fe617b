/**
 * The server's one router: `/v1` (the contract's operations, a sub-router under each base path)
 * and every area outside it (OAuth, MCP, the dashboard, the control plane, assets) register
 * their routes here. A route is a method and a path pattern (`/lists/{list}`, a last segment `*`
 * for any rest); a mount takes a whole subtree, for an area that answers paths no route names
 * (its own 404 page). Targets are opaque to the router: the App decides what they are.
 */

/** Any method: a route's fallback after its own methods (hono's `app.all`). */
export const ANY = '*';

export interface RouterOptions {
  /** HEAD reaches a GET route, and a 405 lists HEAD beside GET (the contract's operations). */
  headAsGet?: boolean;
  /** `/lists/` is `/lists` (the contract's operations; a page wants one address each). */
  trailingSlash?: boolean;
}

interface Route<T> {
  pattern: RegExp | null;
  names: string[];
  byMethod: Map<string, T>;
}

export type Match<T> =
  { kind: 'ok'; target: T; params: Record<string, string> } | { kind: 'method'; allow: string[] } | { kind: 'none' };

const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null));

/** Matches method and path to a target: routes first, then sub-routers by prefix, then mounts. */
export class Router<T> {
  private readonly exact = new Map<string, Route<T>>();
  /**
   * Pattern routes in registration order, by their first segment when it is fixed (`dashboard`,
   * `workspaces`): a path is tried against its bucket only, and a path no area owns fails fast.
   * Routes whose first segment is a parameter are in every bucket and in `anyFirst`.
   */
  private readonly buckets = new Map<string, Route<T>[]>();
  private readonly anyFirst: Route<T>[] = [];
  private readonly subs: Array<{ prefix: string; router: Router<T> }> = [];
  private readonly mounts: Array<{ prefix: string; target: T }> = [];
  private readonly byPattern = new Map<string, Route<T>>();

  constructor(private readonly options: RouterOptions = {}) {}

  /** Adds `target` for `method` (or several, or ANY) at `pattern`; the first registration of a method wins. */
  on(method: string | readonly string[], pattern: string, target: T): this {
    const route = this.routeAt(pattern);
    for (const m of typeof method === 'string' ? [method] : method)
      if (!route.byMethod.has(m)) route.byMethod.set(m, target);
    return this;
  }

  /** Everything under `prefix` that `router` matches, with the prefix taken off (hono's `app.route`). */
  route(prefix: string, router: Router<T>): this {
    this.subs.push({ prefix, router });
    return this;
  }

  /** `prefix` and every path under it that no route answers, whatever the method. */
  mount(prefix: string, target: T): this {
    this.mounts.push({ prefix, target });
    return this;
  }

  match(method: string, path: string): Match<T> {
    for (const { prefix, router } of this.subs) {
      if (path === prefix || (path.startsWith(prefix) && path[prefix.length] === '/'))
        return router.match(method, path.slice(prefix.length) || '/');
    }
    const found = this.find(path);
    if (found) {
      const { route, params } = found;
      const target =
        route.byMethod.get(method) ??
        (method === 'HEAD' && this.options.headAsGet ? route.byMethod.get('GET') : undefined) ??
        route.byMethod.get(ANY);
      if (target !== undefined) return { kind: 'ok', target, params };
    }
    // A path an area owns but not with this method: the area's own answer (its 404 or 405 page).
    const mount = this.mountFor(path);
    if (mount) return { kind: 'ok', target: mount.target, params: NO_PARAMS };
    return found ? { kind: 'method', allow: this.allowed(found.route) } : { kind: 'none' };
  }

  private routeAt(pattern: string): Route<T> {
    let route = this.byPattern.get(pattern);
    if (route) return route;
    const names: string[] = [];
    const dynamic = pattern.includes('{') || pattern.endsWith('/*');
    route = {
      pattern: dynamic ? compile(pattern, names, !!this.options.trailingSlash) : null,
      names,
      byMethod: new Map(),
    };
    this.byPattern.set(pattern, route);
    if (!dynamic) this.exact.set(pattern, route);
    else this.addPattern(pattern.split('/')[1] ?? '', route);
    return route;
  }

  private addPattern(first: string, route: Route<T>): void {
    if (first.startsWith('{') || first === '*') {
      this.anyFirst.push(route);
      for (const bucket of this.buckets.values()) bucket.push(route);
      return;
    }
    let bucket = this.buckets.get(first);
    if (!bucket) this.buckets.set(first, (bucket = [...this.anyFirst]));
    bucket.push(route);
  }

  private find(path: string): { route: Route<T>; params: Record<string, string> } | undefined {
    const exact =
      this.exact.get(path) ??
      (this.options.trailingSlash && path.length > 1 && path.endsWith('/')
        ? this.exact.get(path.slice(0, -1))
        : undefined);
    if (exact) return { route: exact, params: NO_PARAMS };
    const end = path.indexOf('/', 1);
    const bucket = this.buckets.get(end === -1 ? path.slice(1) : path.slice(1, end)) ?? this.anyFirst;
    for (const route of bucket) {
      const m = route.pattern!.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < route.names.length; i++) {
        const raw = m[i + 1];
        params[route.names[i]] = raw.includes('%') ? decodeOr(raw) : raw;
      }
      return { route, params };
    }
    return undefined;
  }

  private mountFor(path: string): { target: T } | undefined {
    for (const m of this.mounts) if (path === m.prefix || path.startsWith(`${m.prefix}/`)) return m;
    return undefined;
  }

  private allowed(route: Route<T>): string[] {
    const allow = [...route.byMethod.keys()];
    return this.options.headAsGet && allow.includes('GET') && !allow.includes('HEAD') ? [...allow, 'HEAD'] : allow;
  }
}

/** A pattern's regular expression: `{name}` is one segment, a last `*` any rest (or none). */
function compile(pattern: string, names: string[], trailingSlash: boolean): RegExp {
  const rest = pattern.endsWith('/*');
  const src = (rest ? pattern.slice(0, -2) : pattern)
    .split('/')
    .map((seg) => {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (!m) return seg.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
      names.push(m[1]);
      return '([^/]+)';
    })
    .join('/');
  return new RegExp(`^${src}${rest ? '(?:/.*)?' : ''}${trailingSlash ? '/?' : ''}$`);
}

/** The percent-decoded segment, or the segment as sent when it does not decode. */
function decodeOr(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
