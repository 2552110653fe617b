import { CliError } from './errors.js';
import { StoreUnavailableError } from '../store/engine/interface.js';
import { SchemaTooNewError } from '../store/postgres/schema.js';

/** A PostgreSQL store that cannot be opened, as the message a command prints; other errors pass. */
export async function rethrowStoreError(err: unknown): Promise<never> {
  if (err instanceof StoreUnavailableError)
    throw new CliError(
      err.message,
      1,
      'Check that PostgreSQL is running and the URL (host, port, user, password, database) is right.',
    );
  if (err instanceof SchemaTooNewError) throw new CliError(err.message);
  const code = (err as { code?: string }).code;
  // Authentication and missing-database errors of PostgreSQL (SQLSTATE 28xxx, 3D000) name no secret.
  if (typeof code === 'string' && (code.startsWith('28') || code === '3D000'))
    throw new CliError(
      `PostgreSQL refused the connection: ${(err as Error).message}.`,
      1,
      'Check the user, password and database in the URL.',
    );
  throw err;
}
