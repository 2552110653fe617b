import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: e2e files spawn real servers, so keep the fan-out modest.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
