import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServe } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';
import { readSnapshotFile } from '../support/store.js';

// On SIGINT/SIGTERM (once or repeated) the server must finish, fold the journal into the data
// file, release the lock and exit 0.
describe('wcm serve stops cleanly on a signal', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it.each([
    ['SIGTERM', 1],
    ['SIGINT', 1],
    ['SIGINT', 2],
  ] as const)(
    '%s ×%i right after start: exit 0, journal folded into the snapshot, lock released',
    async (signal, times) => {
      const t = tempDir();
      cleanup = t.cleanup;
      const data = path.join(t.dir, 'store.json');
      const { proc, url } = await spawnServe(['--data', data, '--seed', DEMO], {
        env: { WCM_CONFIG_DIR: path.join(t.dir, 'config') },
      });
      const res = await fetch(`${url}/workspaces/${demo.ws1}/lists`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Written before the signal', template_slug: 'faq' }),
      });
      expect(res.status).toBe(201);
      const created = (await res.json()) as { data: { id: string } };
      proc.kill(signal);
      if (times === 2) {
        // The second once the first is being handled (two at once may arrive as one).
        await new Promise<void>((resolve) =>
          proc.stderr!.on('data', (d: Buffer) => d.toString().includes('finishing in-flight') && resolve()),
        );
        proc.kill(signal);
      }
      const r = await proc;
      expect(r.signal).toBeUndefined();
      expect(r.exitCode).toBe(0);
      expect(existsSync(`${data}.lock`)).toBe(false);
      expect(readFileSync(`${data}.journal`).length).toBe(0);
      const snapshot = readSnapshotFile(data);
      expect(snapshot.collections.listings.map((l) => l.id)).toContain(created.data.id);
    },
  );
});
