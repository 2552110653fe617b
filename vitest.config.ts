import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// One scratch directory per test run: every temp directory a test, the binary or a browser makes goes
// under it (TMPDIR), and the global teardown removes it, so a run leaves nothing behind in /tmp.
// Every process a test starts keeps its profiles in `config/` there, never in the user's real config
// directory; tests that need their own directory still set WCM_CONFIG_DIR.
const scratch = process.env.WCM_TEST_SCRATCH ?? mkdtempSync(path.join(tmpdir(), 'wcm-test-run-'));
process.env.WCM_TEST_SCRATCH = scratch;
process.env.TMPDIR = scratch;
const configDir = path.join(scratch, 'config');

export default defineConfig({
  test: {
    root: path.dirname(fileURLToPath(import.meta.url)),
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/scratch.ts', 'test/support/postgres-cluster.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: e2e files spawn real servers, so keep the fan-out modest.
    maxWorkers: 2,
    fileParallelism: true,
    env: { WCM_CONFIG_DIR: configDir, TMPDIR: scratch, WCM_TEST_SCRATCH: scratch },
  },
});
