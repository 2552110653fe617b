import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// Every process a test starts (the binary, `wcm serve`) keeps its profiles here, never in the
// user's real config directory. Tests that need their own directory still set WCM_CONFIG_DIR.
const configDir = mkdtempSync(path.join(tmpdir(), 'wcm-test-config-'));

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: e2e files spawn real servers, so keep the fan-out modest.
    maxWorkers: 2,
    fileParallelism: true,
    env: { WCM_CONFIG_DIR: configDir },
  },
});
