import { afterAll } from 'vitest';

// Vitest setup file: runs before every test file, also where files share a worker without isolation
// (vitest.config.ts), so what a file leaves is cleaned up after that file and not only the first.
afterAll(async () => {
  const postgres = (globalThis as Record<symbol, (() => Promise<void>) | undefined>)[
    Symbol.for('wcm.test.postgres.leftovers')
  ];
  await postgres?.();
});
