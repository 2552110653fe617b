import type { Profile, ProfileStore } from './config.js';

/**
 * Where saved secrets live (issue 18): the OS keychain (macOS Keychain, Windows Credential
 * Manager, Linux Secret Service) through @napi-rs/keyring when there is one, else the profile in
 * the 0600 config file. The config file then holds only a reference, `token_ref`.
 */

/** One secret store, small enough for a test double. */
export interface CredentialStore {
  /** What `wcm auth status` says: `keychain` or `file`. */
  readonly kind: 'keychain' | 'file';
  get(account: string): string | undefined;
  /** False when the store refused (no keychain after all): the caller falls back to the file. */
  set(account: string, secret: string): boolean;
  delete(account: string): void;
}

const SERVICE = 'wcm';

/** The keychain account of a profile's token: profile and origin, so a reference names its host. */
export function tokenAccount(profile: string, origin: string): string {
  return `${profile}@${origin}`;
}

interface KeyringEntry {
  getPassword(): string | null | undefined;
  setPassword(secret: string): void;
  deletePassword(): boolean;
}
type KeyringModule = { Entry: new (service: string, account: string) => KeyringEntry };

/** The keychain through @napi-rs/keyring; every call that fails reads as "not there". */
export class KeychainStore implements CredentialStore {
  readonly kind = 'keychain';
  constructor(private readonly keyring: KeyringModule) {}

  get(account: string): string | undefined {
    try {
      return new this.keyring.Entry(SERVICE, account).getPassword() ?? undefined;
    } catch {
      return undefined;
    }
  }

  set(account: string, secret: string): boolean {
    try {
      const entry = new this.keyring.Entry(SERVICE, account);
      entry.setPassword(secret);
      // Some backends accept a write they cannot read back (a locked or absent collection).
      return entry.getPassword() === secret;
    } catch {
      return false;
    }
  }

  delete(account: string): void {
    try {
      new this.keyring.Entry(SERVICE, account).deletePassword();
    } catch {
      /* already gone, or no keychain: nothing to forget */
    }
  }
}

let opened: Promise<CredentialStore | null> | null = null;

/**
 * The OS keychain, or null when there is none. Loaded only by commands that read or save a token.
 * `WCM_KEYCHAIN=off` turns it off. On Linux without a session bus there is no Secret Service, so
 * the native module is not even loaded; elsewhere a failing keychain answers in milliseconds
 * (keyring-rs returns an error rather than waiting), and `set` checks the write before trusting it.
 */
export function openKeychain(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<CredentialStore | null> {
  if (env.WCM_KEYCHAIN === 'off' || env.WCM_KEYCHAIN === '0') return Promise.resolve(null);
  if (platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS) return Promise.resolve(null);
  return (opened ??= import('@napi-rs/keyring').then(
    (m) => new KeychainStore(m as unknown as KeyringModule),
    () => null,
  ));
}

/**
 * Saves `profile` with its token: in the keychain when there is one and it takes the write (the
 * file then holds `token_ref`), else in the 0600 file. A keychain entry the profile held before
 * is removed when it is no longer used. Returns where the token went.
 */
export async function saveProfileToken(
  profiles: ProfileStore,
  name: string,
  profile: Omit<Profile, 'token' | 'token_ref'>,
  token: string,
  keychain: CredentialStore | null,
): Promise<'keychain' | 'file'> {
  const before = profiles.get(name);
  const old = before?.token_ref;
  // A profile saved without OAuth state no longer needs the refresh token a `--web` login kept.
  if (before?.oauth?.refresh_ref && !profile.oauth) keychain?.delete(before.oauth.refresh_ref);
  const account = tokenAccount(name, new URL(profile.base_url).origin);
  const inKeychain = !!keychain?.set(account, token);
  await profiles.set(name, inKeychain ? { ...profile, token_ref: account } : { ...profile, token });
  if (old && old !== (inKeychain ? account : undefined)) keychain?.delete(old);
  return inKeychain ? 'keychain' : 'file';
}

/** Forgets a profile's token wherever it is kept; the base URL and workspace stay. */
export async function forgetProfileToken(
  profiles: ProfileStore,
  name: string,
  keychain: CredentialStore | null,
): Promise<void> {
  const p = profiles.get(name);
  if (!p) return;
  const { token: _t, token_ref: ref, oauth, ...rest } = p;
  if (ref) keychain?.delete(ref);
  if (oauth?.refresh_ref) keychain?.delete(oauth.refresh_ref);
  await profiles.set(name, rest);
}

/** Saves the OAuth part of a profile; the refresh token goes to the keychain when there is one. */
export async function saveOAuthState(
  profiles: ProfileStore,
  name: string,
  oauth: NonNullable<Profile['oauth']>,
  keychain: CredentialStore | null,
): Promise<void> {
  const p = profiles.get(name);
  if (!p) return;
  const { refresh_token: refresh, ...rest } = oauth;
  const account = `${tokenAccount(name, new URL(p.base_url).origin)}#refresh`;
  const inKeychain = !!refresh && !!keychain?.set(account, refresh);
  await profiles.set(name, {
    ...p,
    oauth: inKeychain ? { ...rest, refresh_ref: account } : { ...rest, ...(refresh ? { refresh_token: refresh } : {}) },
  });
}
