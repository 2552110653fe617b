/**
 * The one way wcm loads postgres.js, with a guard for a bug in its 3.4 releases.
 *
 * postgres.js buffers a small write and sends it from `setImmediate`. A connection whose socket
 * has closed sets the socket to null, yet a transaction that lost its connection (the database
 * restarted, a pooler dropped it) still sends its ROLLBACK, or its next statement, on it: the
 * write lands on null and throws from the immediate, where nothing can catch it, and the whole
 * server ends. The guard settles that write instead: the queries waiting on the connection fail
 * with CONNECTION_CLOSED, the request answers 503, and the pool connects anew.
 *
 * The guard is a module-load hook (`node:module` register) that adds the check to that one
 * function as postgres.js is loaded, so it holds for every install (an install script would not
 * run for a global install). A postgres.js without the unguarded line loads as it is.
 */
import { register } from 'node:module';
import type postgresType from 'postgres';

const UNGUARDED = '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)';
const GUARDED =
  '  function nextWrite(fn) {\n' +
  "    if (socket === null) { chunk = nextWriteTimer = null; error(Errors.connection('CONNECTION_CLOSED', options)); return false }\n" +
  '    const x = socket.write(chunk, fn)';

const HOOK = `
const UNGUARDED = ${JSON.stringify(UNGUARDED)};
const GUARDED = ${JSON.stringify(GUARDED)};
export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (!/\\/postgres\\/(?:cjs\\/)?src\\/connection\\.js$/.test(url) || loaded.source == null) return loaded;
  const text = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
  return text.includes(UNGUARDED) ? { ...loaded, source: text.replace(UNGUARDED, GUARDED) } : loaded;
}
`;

// Once a process (a module re-evaluated in a test's fresh module graph must not chain it again).
const GUARD = Symbol.for('wcm.postgres-guard');
/** Installs the guard; before postgres.js is first loaded, or it has no effect on that process. */
export function guardPostgres(): void {
  const flags = globalThis as { [GUARD]?: true };
  if (flags[GUARD]) return;
  flags[GUARD] = true;
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`);
}

/** postgres.js, guarded. */
export async function loadPostgres(): Promise<typeof postgresType> {
  guardPostgres();
  return (await import('postgres')).default;
}
