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
/** Test files about processes: the built binary, real servers killed mid-write, browsers, the soak. */
const PROCESSES = [
  'test/e2e/**/*.test.ts',
  'test/reliability/crash.test.ts',
  'test/reliability/concurrency.test.ts',
  'test/soak/**/*.test.ts',
];

export default defineConfig({
  test: {
    root: path.dirname(fileURLToPath(import.meta.url)),
    globalSetup: ['test/support/scratch.ts', 'test/support/postgres-cluster.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: e2e files spawn real servers, so keep the fan-out modest.
    maxWorkers: 2,
    fileParallelism: true,
    env: { WCM_CONFIG_DIR: configDir, TMPDIR: scratch, WCM_TEST_SCRATCH: scratch },
    // After each file, what it left in PostgreSQL is dropped (test/support/postgres.ts).
    setupFiles: ['test/support/per-file.ts'],
    projects: [
      // In-process tests share their worker's loaded modules (isolate: false): loading the server and
      // the CLI again for every file was half of these files' CPU (docs/testing.md). Each file still
      // makes its own servers and stores; none mocks modules or changes globals.
      { extends: true, test: { name: 'json', include: ['test/**/*.test.ts'], exclude: PROCESSES, isolate: false } },
      // Files that spawn the binary, browsers and killed servers keep a fresh worker each.
      { extends: true, test: { name: 'e2e', include: PROCESSES } },
      // The API behaviour and OpenAPI conformance again, with every server on PostgreSQL (SANDBOX.md:
      // one suite, parameterised by store; test/support/server.ts reads WCM_TEST_STORE).
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/server/**/*.test.ts', 'test/api/**/*.test.ts', 'test/contract/openapi*.test.ts'],
          exclude: [
            // About the JSON store's own files (journal bytes, the snapshot file): no such files on PostgreSQL.
            'test/server/oauth/refresh-rotation.test.ts',
            'test/server/oauth/prune.test.ts',
            // Named snapshots as files beside the data file; on PostgreSQL they are table copies
            // (test/store/engine-conformance.test.ts, test/e2e/sandbox.test.ts).
            'test/server/named-snapshots.test.ts',
            // Caches keyed by the JSON engine's record objects and index stubs; on PostgreSQL every
            // read goes to the database, so there is nothing of theirs to go stale.
            'test/server/hot-paths.test.ts',
          ],
          env: { WCM_CONFIG_DIR: configDir, TMPDIR: scratch, WCM_TEST_SCRATCH: scratch, WCM_TEST_STORE: 'postgres' },
          isolate: false,
        },
      },
    ],
  },
});
