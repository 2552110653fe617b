import { UsageError } from './errors.js';
import path from 'node:path';

/** The data file a `wcm local …` command works on (same default as `wcm serve`). */
export function dataFileOf(f: { cwd: string }, data: string | undefined): string {
  return path.resolve(f.cwd, data ?? '.wcm/store.json');
}

export const dataOption = {
  flags: '--data <file>',
  description: 'data file (default .wcm/store.json, as for wcm serve)',
};

export const storeOption = {
  flags: '--store <url>',
  description: 'work on the PostgreSQL store at this postgres:// URL (env WCM_STORE) instead of a data file',
};

/**
 * The PostgreSQL URL a command works on (`--store`, else WCM_STORE), checked; undefined for the
 * JSON file. `--data` and `--store` together are refused: which one was meant is not clear.
 */
export function storeUrlOf(f: { env: NodeJS.ProcessEnv }, opts: { store?: string; data?: string }): string | undefined {
  const fromFlag = opts.store !== undefined;
  const url = opts.store ?? (f.env.WCM_STORE || undefined);
  if (url === undefined) return undefined;
  const name = fromFlag ? '`--store`' : '`WCM_STORE`';
  if (opts.data !== undefined)
    throw new UsageError(`Pass either \`--data\` (a JSON data file) or ${name} (PostgreSQL), not both.`);
  if (url === 'embedded') return url;
  if (!/^postgres(ql)?:\/\/./.test(url))
    throw new UsageError(
      `${name} must be a postgres:// URL (postgres://USER:PASS@HOST:5432/DB) or \`embedded\`; received \`${url.replace(/:[^:@/]*@/, ':***@')}\`.`,
    );
  return url;
}
