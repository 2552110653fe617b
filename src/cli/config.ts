import { chmodSync } from 'node:fs';
import { CliError, EXIT } from './errors.js';

export interface Profile {
  base_url: string;
  token?: string;
  workspace?: string;
}

interface ConfigShape {
  current_profile?: string;
  profiles: Record<string, Profile>;
}

/** Profiles, kept by `conf` in a file of mode 0600 (directory from WCM_CONFIG_DIR). */
export class ProfileStore {
  private constructor(private readonly conf: { store: ConfigShape; path: string }) {}

  static async open(env: NodeJS.ProcessEnv): Promise<ProfileStore> {
    const { default: Conf } = await import('conf');
    const conf = ProfileStore.guard(() => new Conf<ConfigShape>({
      projectName: 'wcm',
      projectSuffix: '',
      ...(env.WCM_CONFIG_DIR ? { cwd: env.WCM_CONFIG_DIR } : {}),
      configFileMode: 0o600,
      defaults: { profiles: {} },
    }), env.WCM_CONFIG_DIR);
    return new ProfileStore(conf as unknown as { store: ConfigShape; path: string });
  }

  /** Runs `fn`, turning a broken config file into a message that quotes none of its text. */
  private static guard<T>(fn: () => T, dir: string | undefined): T {
    try {
      return fn();
    } catch (err) {
      throw new CliError(
        `The wcm config file${dir ? ` in ${dir}` : ''} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).name}).`,
        EXIT.failure,
        'Fix it by hand, or delete it and log in again with `wcm auth login`.',
      );
    }
  }

  get path(): string {
    return this.conf.path;
  }

  private read(): ConfigShape {
    let s: ConfigShape;
    try {
      s = this.conf.store;
    } catch (err) {
      // JSON.parse messages quote the text around the error, which may be a token: never pass them on.
      throw new CliError(
        `The config file ${this.conf.path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).name}).`,
        EXIT.failure,
        'Fix it by hand, or delete it and log in again with `wcm auth login`.',
      );
    }
    return { current_profile: s.current_profile, profiles: { ...(s.profiles ?? {}) } };
  }

  private write(s: ConfigShape): void {
    this.conf.store = s;
    // conf applies the mode on create; make sure a file created by an older version is 0600 too.
    try {
      chmodSync(this.conf.path, 0o600);
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

  set(name: string, profile: Profile): void {
    const s = this.read();
    s.profiles[name] = profile;
    this.write(s);
  }

  remove(name: string): boolean {
    const s = this.read();
    if (!s.profiles[name]) return false;
    delete s.profiles[name];
    if (s.current_profile === name) delete s.current_profile;
    this.write(s);
    return true;
  }

  use(name: string): void {
    const s = this.read();
    s.current_profile = name;
    this.write(s);
  }
}
