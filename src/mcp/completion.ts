import { callTool } from './tool-call.js';
import type { Dispatch, ToolDef } from './tools.js';

/** The resource templates: a thread and a page, each read through its get tool. */
export const RESOURCES: Record<
  string,
  { operation: string; param: string; label: string; list: string; nameOf: (item: Named) => string }
> = {
  threads: {
    operation: 'getThread',
    param: 'thread',
    label: 'A conversation thread with its messages',
    list: 'listThreads',
    nameOf: (t) => t.subject ?? '',
  },
  pages: {
    operation: 'getPage',
    param: 'page',
    label: 'A hosted page',
    list: 'listPages',
    nameOf: (p) => p.name ?? '',
  },
};

interface Named {
  id: string;
  name?: string | null;
  subject?: string | null;
}

export interface CompleteParams {
  ref: { type: string; uri?: string; name?: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

/** The most values one answer may carry (MCP: completion). */
const MAX_VALUES = 100;
const TEMPLATE = /^wcm:\/\/workspaces\/\{workspace\}\/(threads|pages)\/\{(thread|page)\}$/;

/**
 * `completion/complete` for a resource template's argument: the ids that match what was typed (an
 * id's start, or a part of its name), read with the caller's own token, so only the token's
 * workspaces and what its abilities read come back. Anything else (a prompt: wcm has none)
 * completes to nothing.
 */
export async function completeArgument(
  params: CompleteParams,
  toolOf: (name: string) => ToolDef | undefined,
  dispatch: Dispatch,
  defaultWorkspace: string | undefined,
): Promise<Completion> {
  const m = params.ref.type === 'ref/resource' ? TEMPLATE.exec(params.ref.uri ?? '') : null;
  if (!m) return matches([], '');
  const typed = params.argument.value ?? '';
  if (params.argument.name === 'workspace') {
    const me = await read(toolOf('getMe'), {}, dispatch);
    return matches((me as { workspaces?: Named[] } | null)?.workspaces ?? [], typed, (w) => w.name ?? '');
  }
  const r = RESOURCES[m[1]];
  const workspace = params.context?.arguments?.workspace ?? defaultWorkspace;
  if (params.argument.name !== r.param || !workspace) return matches([], typed);
  const items = await read(toolOf(r.list), { workspace, limit: MAX_VALUES }, dispatch);
  return matches(Array.isArray(items) ? (items as Named[]) : [], typed, r.nameOf);
}

/** A tool's data, or null when the call failed (no ability, not a member): nothing to offer. */
async function read(tool: ToolDef | undefined, args: Record<string, unknown>, dispatch: Dispatch): Promise<unknown> {
  if (!tool) return null;
  const result = await callTool(tool, args, dispatch, undefined);
  return result.isError ? null : (result.structuredContent?.data ?? null);
}

function matches(items: Named[], typed: string, nameOf: (item: Named) => string = () => ''): Completion {
  const t = typed.toLowerCase();
  const found = items
    .filter((i) => i.id.toLowerCase().startsWith(t) || nameOf(i).toLowerCase().includes(t))
    .map((i) => i.id);
  return { values: found.slice(0, MAX_VALUES), total: found.length, hasMore: found.length > MAX_VALUES };
}
