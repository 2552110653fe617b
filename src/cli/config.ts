import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { privateDirSync } from '../private-dir.js';
import { CliError, EXIT } from './errors.js';

export interface Profile {
  /** Also the origin the token is bound to (issue 18): it is sent to no other. */
  base_url: string;
  /** The token itself, when there is no OS keychain (this file is 0600). */
  token?: string;
  /** The keychain account holding the token, when there is a keychain (src/cli/credentials.ts). */
  token_ref?: string;
  workspace?: string;
  /** Profile `local` only: the control plane's admin token of the server it points at (`wcm local …`, `wcm logs`). */
  admin_token?: string;
  /** Profile of `wcm serve` only: the payment-notification signing secret the server generated (not one from WCM_WEBHOOK_SECRET). */
  webhook_secret?: string;
  /** Set by `wcm auth login --web`: how to refresh and revoke the OAuth access token. */
  oauth?: {
    client_id: string;
    token_endpoint: string;
    revocation_endpoint?: string;
    /** The refresh token, when there is no keychain; else `refresh_ref` names its keychain account. */
    refresh_token?: string;
    refresh_ref?: string;
    expires_at?: string;
    scope?: string;
  };
}

interface ConfigShape {
  current_profile?: string;
  profiles: Record<string, Profile>;
}

/**
 * The directory of wcm's config (where the `conf` package of older versions kept it): WCM_CONFIG_DIR, else env-paths' config directory
 * for project `wcm` with no suffix (Linux `$XDG_CONFIG_HOME/wcm` or `~/.config/wcm`, macOS
 * `~/Library/Preferences/wcm`, Windows `%APPDATA%\wcm\Config`).
 */
export function configDir(
  env: NodeJS.ProcessEnv,
  home = homedir(),
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.WCM_CONFIG_DIR) return path.resolve(env.WCM_CONFIG_DIR);
  if (platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'wcm');
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'wcm', 'Config');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'wcm');
}

/**
 * Profiles in a file of mode 0600 (directory from WCM_CONFIG_DIR). Reads are a plain
 * `readFileSync` + `JSON.parse`; writes replace the file atomically, in the format and at the path
 * of the `conf` package that older versions wrote it with. (conf loaded ajv and semver: 0.2 s of CPU
 * on every `wcm serve` start and login, for a schema wcm never gave it.)
 */
export class ProfileStore {
  private constructor(
    readonly path: string,
    private readonly dir: string,
    private readonly label: string | undefined,
  ) {}

  static async open(env: NodeJS.ProcessEnv): Promise<ProfileStore> {
    const dir = configDir(env);
    const store = new ProfileStore(path.join(dir, 'config.json'), dir, env.WCM_CONFIG_DIR);
    // A broken file is reported when the store opens, as conf did: before any command work.
    store.load((reason) => store.unreadable(reason));
    return store;
  }

  /** The error for a config file that cannot be read or parsed (`reason`: an errno code or error name). */
  private unreadable(reason: string): CliError {
    return new CliError(
      `The wcm config file${this.label ? ` in ${this.label}` : ''} cannot be read (${reason}).`,
      EXIT.failure,
      'Fix it by hand, or delete it and log in again with `wcm auth login`.',
    );
  }

  /** The file's contents (empty when there is none); a broken file throws `error(reason)`. */
  private load(error: (reason: string) => CliError): ConfigShape {
    let s: unknown;
    try {
      s = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      // JSON.parse messages quote the text around the error, which may be a token: never pass them on.
      throw error((err as NodeJS.ErrnoException).code ?? (err as Error).name);
    }
    // As conf reads it: anything but an object holds no settings.
    const o = (s && typeof s === 'object' && !Array.isArray(s) ? s : {}) as Partial<ConfigShape>;
    return { current_profile: o.current_profile, profiles: { ...(o.profiles ?? {}) } };
  }

  private read(): ConfigShape {
    return this.load(
      (reason) =>
        new CliError(
          `The config file ${this.path} cannot be read (${reason}).`,
          EXIT.failure,
          'Fix it by hand, or delete it and log in again with `wcm auth login`.',
        ),
    );
  }

  /**
   * Refuses to write through a symbolic link (TRUST §5): the link could send profiles and tokens
   * to a file another user reads, or make the write replace an unrelated file. The directory is
   * created 0700; the default one, wcm's own, is made 0700 if an older wcm left it open to others
   * (a WCM_CONFIG_DIR is the user's and keeps its mode).
   */
  private checkWritable(): void {
    privateDirSync(this.dir, this.label === undefined);
    let link: string | undefined;
    try {
      if (lstatSync(this.path).isSymbolicLink()) link = readlinkSync(this.path);
    } catch {
      /* no file yet: the write creates it */
    }
    if (link !== undefined) {
      throw new CliError(
        `The wcm config file ${this.path} is a symbolic link (to ${link}); wcm does not write profiles and tokens through a link.`,
        EXIT.failure,
        `Replace it with a regular file (\`rm ${this.path}\`, then log in again), or point WCM_CONFIG_DIR at a directory of your own.`,
      );
    }
  }

  private async write(s: ConfigShape): Promise<void> {
    this.checkWritable();
    try {
      // As conf wrote it: tab-indented JSON.
      replaceFile(this.path, JSON.stringify(s, undefined, '\t'));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).name;
      throw new CliError(
        `Cannot write the wcm config file ${this.path} (${code}).`,
        EXIT.failure,
        `Make its directory writable, or point WCM_CONFIG_DIR at a directory of your own.`,
      );
    }
  }

  list(): Record<string, Profile> {
    return this.read().profiles;
  }

  get(name: string): Profile | undefined {
    return this.read().profiles[name];
  }

  /** The profile used when none is named: the one chosen by `wcm profile use`, else `default`, else the only one. */
  current(): string | undefined {
    const s = this.read();
    if (s.current_profile && s.profiles[s.current_profile]) return s.current_profile;
    if (s.profiles.default) return 'default';
    const names = Object.keys(s.profiles);
    return names.length === 1 ? names[0] : undefined;
  }

  async set(name: string, profile: Profile): Promise<void> {
    const s = this.read();
    s.profiles[name] = profile;
    await this.write(s);
  }

  async remove(name: string): Promise<boolean> {
    const s = this.read();
    if (!s.profiles[name]) return false;
    delete s.profiles[name];
    if (s.current_profile === name) delete s.current_profile;
    await this.write(s);
    return true;
  }

  /**
   * Writes down the profile `current()` finds only implicitly (the only one, or `default`), so
   * that adding another profile cannot change which one commands use.
   */
  async pinCurrent(): Promise<void> {
    const name = this.current();
    if (name && this.read().current_profile !== name) await this.use(name);
  }

  async use(name: string): Promise<void> {
    const s = this.read();
    s.current_profile = name;
    await this.write(s);
  }
}

/**
 * Writes `text` to a new file of mode 0600 beside `file`, flushed to disk, and renames it over
 * `file`: a crash or a full disk leaves the old profiles or the new ones, never half a file, and a
 * file an older version left readable by others is replaced by a 0600 one.
 */
function replaceFile(file: string, text: string): void {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameWithRetry(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * On Windows a rename over a file another process has open (a virus scanner, an editor) fails
 * for a moment with EPERM, EACCES or EBUSY: tried again for up to a second, as conf did.
 */
function renameWithRetry(from: string, to: string): void {
  for (let waited = 0; ; waited += 50) {
    try {
      return renameSync(from, to);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (process.platform !== 'win32' || waited >= 1000 || !['EPERM', 'EACCES', 'EBUSY'].includes(code ?? ''))
        throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
}

/**
 * Makes `name` the current profile when none is (the first login, the first `wcm serve`), and says
 * so on `stderr` when that changes which profile commands use: a switch is never silent.
 */
export async function useWhenNoneCurrent(
  profiles: ProfileStore,
  name: string,
  before: string | undefined,
  stderr: { write(s: string): unknown },
): Promise<void> {
  if (!profiles.current()) await profiles.use(name);
  if (profiles.current() !== name || before === name) return;
  stderr.write(
    `Active profile is now ${name}${before ? ` (was ${before}; \`wcm profile use ${before}\` switches back)` : ''}\n`,
  );
}
