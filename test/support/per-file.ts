import { afterAll } from 'vitest';
import { guardPostgres } from '../../src/store/postgres/client.js';

// Vitest setup file: runs before every test file, also where files share a worker without isolation
// (vitest.config.ts), so what a file leaves is cleaned up after that file and not only the first.
// Before a test file's own `import postgres from 'postgres'`: the guard the engine installs for
// the server (src/store/postgres/client.ts) holds in the tests' processes too.
guardPostgres();
afterAll(async () => {
  const postgres = (globalThis as Record<symbol, (() => Promise<void>) | undefined>)[
    Symbol.for('wcm.test.postgres.leftovers')
  ];
  await postgres?.();
});
