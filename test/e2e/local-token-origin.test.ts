// `wcm local token --profile X` (the built binary): the fresh owner token belongs to the local store, so
// it is never saved in a profile that points at another host (docs/security.md, "The CLI").
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/cli/config.js';
import { wcm } from '../support/cli.js';
import { DEMO, tempDir } from '../support/server.js';

describe('wcm local token --profile', () => {
  it('refuses a profile aimed at another host before issuing anything; saves a new one for the local origin, printing it', async () => {
    const dir = tempDir('wcm-local-token-origin-');
    try {
      const env = { WCM_CONFIG_DIR: path.join(dir.dir, 'cfg') };
      const data = path.join(dir.dir, 'store.json');
      expect((await wcm(['local', 'import', DEMO, '--data', data], { env })).exitCode).toBe(0);
      const profiles = await ProfileStore.open({ WCM_CONFIG_DIR: env.WCM_CONFIG_DIR });
      await profiles.set('staging', { base_url: 'https://staging.example.com/v1', token: 'wcm_pat_stagingOwn' });
      const config = () => readFileSync(path.join(env.WCM_CONFIG_DIR, 'config.json'), 'utf8');
      const before = config();
      const journal = () => readFileSync(`${data}.journal`, 'utf8').length;
      const written = journal();

      const refused = await wcm(['local', 'token', '--data', data, '--profile', 'staging'], { env });
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(
        'Profile `staging` points at https://staging.example.com, not at a server on this machine',
      );
      expect(refused.stdout).toBe('');
      expect(config()).toBe(before);
      expect(journal()).toBe(written); // no token was issued

      const fresh = await wcm(['local', 'token', '--data', data, '--profile', 'copy'], { env });
      expect(fresh.exitCode, fresh.stderr).toBe(0);
      expect(fresh.stderr).toContain('saved as profile `copy` for http://127.0.0.1:4010 (workspace');
      const saved = JSON.parse(config()).profiles;
      expect(saved.copy.base_url).toBe('http://127.0.0.1:4010/v1');
      expect(saved.staging).toEqual({ base_url: 'https://staging.example.com/v1', token: 'wcm_pat_stagingOwn' });

      // --no-save only prints, whatever the profile points at.
      const printed = await wcm(['local', 'token', '--data', data, '--profile', 'staging', '--no-save'], { env });
      expect(printed.exitCode, printed.stderr).toBe(0);
      expect(printed.stdout).toMatch(/^wcm_pat_/);
    } finally {
      dir.cleanup();
    }
  });
});
