import { chmodSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
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
 * The directory `conf` keeps wcm's config in: WCM_CONFIG_DIR, else env-paths' config directory
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

type Conf = { store: ConfigShape; path: string };

/**
 * Profiles in a file of mode 0600 (directory from WCM_CONFIG_DIR). Reads are a plain
 * `readFileSync` + `JSON.parse` of the file `conf` writes; `conf` (ajv, semver, atomic writes)
 * loads only to write, so commands that only read their target start fast.
 */
export class ProfileStore {
  private conf: Promise<Conf> | null = null;

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

  /** conf, loaded on the first write, pointed at the directory reads use. */
  private writer(): Promise<Conf> {
    return (this.conf ??= import('conf').then(({ default: Conf }) => {
      try {
        return new Conf<ConfigShape>({
          projectName: 'wcm',
          projectSuffix: '',
          cwd: this.dir,
          configFileMode: 0o600,
          defaults: { profiles: {} },
        }) as unknown as Conf;
      } catch (err) {
        this.conf = null;
        throw this.unreadable((err as NodeJS.ErrnoException).code ?? (err as Error).name);
      }
    }));
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
      /* no file yet: conf creates it */
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
    const conf = await this.writer();
    conf.store = s;
    // conf applies the mode on create; make sure a file created by an older version is 0600 too.
    try {
      chmodSync(this.path, 0o600);
    } catch {
      /* the file is written by conf; nothing to fix if it is gone */
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

  async use(name: string): Promise<void> {
    const s = this.read();
    s.current_profile = name;
    await this.write(s);
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
