import { statSync } from 'node:fs';
import path from 'node:path';
import { ProfileStore } from '../../src/cli/config.js';
import { fakeIO, runInProcess, type FakeIO } from '../support/cli.js';
import { onPort, tempDir } from '../support/server.js';

/** The real server on a free port plus a private config directory, for in-process command runs. */
export async function clientHarness(opts: { fixtures?: string[] } = {}) {
  const server = await onPort({ fixtures: opts.fixtures });
  const cfg = tempDir('wcm-config-');
  const base = server.url;
  const run = (args: string[], o: { io?: FakeIO; env?: Record<string, string | undefined> } = {}) =>
    runInProcess(args, { io: o.io ?? fakeIO(), env: { WCM_CONFIG_DIR: cfg.dir, ...o.env } });
  return {
    server,
    base,
    configDir: cfg.dir,
    configFile: path.join(cfg.dir, 'config.json'),
    run,
    profiles: () => ProfileStore.open({ WCM_CONFIG_DIR: cfg.dir }),
    mode: () => statSync(path.join(cfg.dir, 'config.json')).mode & 0o777,
    async close() {
      await server.close();
      cfg.cleanup();
    },
  };
}
export type ClientHarness = Awaited<ReturnType<typeof clientHarness>>;
