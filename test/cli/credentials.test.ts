import { readFileSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/cli/config.js';
import { forgetProfileToken, KeychainStore, openKeychain, saveProfileToken } from '../../src/cli/credentials.js';
import { refFor, resolveTarget } from '../../src/cli/target.js';
import { tempDir } from '../support/server.js';

const TOKEN = `wcm_pat_${'K'.repeat(40)}`;

/** A stand-in for @napi-rs/keyring's Entry over a Map: the keychain these machines do not have. */
function fakeKeyring(opts: { refuse?: boolean } = {}) {
  const items = new Map<string, string>();
  class Entry {
    constructor(
      private readonly service: string,
      private readonly account: string,
    ) {}
    private get key() {
      return `${this.service}/${this.account}`;
    }
    getPassword() {
      if (opts.refuse) throw new Error("Couldn't access platform storage: AccessDenied");
      return items.get(this.key) ?? null;
    }
    setPassword(secret: string) {
      if (opts.refuse) throw new Error("Couldn't access platform storage: AccessDenied");
      items.set(this.key, secret);
    }
    deletePassword() {
      return items.delete(this.key);
    }
  }
  return { items, keychain: new KeychainStore({ Entry }) };
}

let dir: ReturnType<typeof tempDir>;
let profiles: ProfileStore;
beforeEach(async () => {
  dir = tempDir('wcm-cred-');
  profiles = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir });
});
afterEach(() => dir.cleanup());

describe('where a token is kept', () => {
  it('with a keychain: the file holds only a reference, the target reads it back, logout removes it', async () => {
    const { items, keychain } = fakeKeyring();
    expect(await saveProfileToken(profiles, 'default', { base_url: 'https://prod.example/v1' }, TOKEN, keychain)).toBe(
      'keychain',
    );
    expect(readFileSync(profiles.path, 'utf8')).not.toContain(TOKEN);
    expect(profiles.get('default')).toEqual({
      base_url: 'https://prod.example/v1',
      token_ref: 'default@https://prod.example',
    });
    const t = resolveTarget({}, {}, profiles);
    expect([t.token, t.tokenRef, t.storage]).toEqual([undefined, 'default@https://prod.example', 'keychain']);
    expect(keychain.get(t.tokenRef!)).toBe(TOKEN);
    // A keychain token is bound to its origin like a file token.
    expect(resolveTarget({ baseUrl: 'https://evil.example/v1' }, {}, profiles).withheld?.savedFor).toBe(
      'https://prod.example',
    );
    await forgetProfileToken(profiles, 'default', keychain);
    expect(items.size).toBe(0);
    expect(profiles.get('default')).toEqual({ base_url: 'https://prod.example/v1' });
  });

  // docs/security.md#control-plane-logs-and-files: an edited config file cannot point a profile at another origin's keychain entry.
  it("a keychain reference naming another origin is not read: the profile's token is withheld as belonging there", async () => {
    const { keychain } = fakeKeyring();
    await saveProfileToken(profiles, 'prod', { base_url: 'https://prod.example/v1' }, TOKEN, keychain);
    await profiles.set('evil', { base_url: 'https://evil.example/v1', token_ref: 'prod@https://prod.example' });
    const t = resolveTarget({ profile: 'evil' }, {}, profiles);
    expect(t.tokenRef).toBeUndefined();
    expect(t.token).toBeUndefined();
    expect(t.withheld).toMatchObject({ profile: 'evil', savedFor: 'https://prod.example' });
    // Its own reference still works.
    expect(resolveTarget({ profile: 'prod' }, {}, profiles).tokenRef).toBe('prod@https://prod.example');
    expect(refFor('evil@https://evil.example#refresh', 'https://evil.example/v1', '#refresh')).toBe(
      'evil@https://evil.example#refresh',
    );
    expect(refFor('prod@https://prod.example#refresh', 'https://evil.example/v1', '#refresh')).toBeUndefined();
  });

  it('logging in to another host drops the old keychain entry', async () => {
    const { items, keychain } = fakeKeyring();
    await saveProfileToken(profiles, 'default', { base_url: 'https://a.example/v1' }, TOKEN, keychain);
    await saveProfileToken(profiles, 'default', { base_url: 'https://b.example/v1' }, TOKEN, keychain);
    expect([...items.keys()]).toEqual(['wcm/default@https://b.example']);
  });

  it('a keychain that refuses the write: the token goes to the 0600 file', async () => {
    const { keychain } = fakeKeyring({ refuse: true });
    expect(await saveProfileToken(profiles, 'default', { base_url: 'https://prod.example/v1' }, TOKEN, keychain)).toBe(
      'file',
    );
    expect(profiles.get('default')?.token).toBe(TOKEN);
    expect(statSync(profiles.path).mode & 0o777).toBe(0o600);
    expect(resolveTarget({}, {}, profiles).storage).toBe('file');
  });

  it('no keychain on Linux without a session bus, or with WCM_KEYCHAIN=off: the file, for real', async () => {
    expect(await openKeychain({}, 'linux')).toBeNull();
    expect(await openKeychain({ WCM_KEYCHAIN: 'off', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' }, 'darwin')).toBeNull();
    expect(
      await saveProfileToken(
        profiles,
        'default',
        { base_url: 'http://127.0.0.1:4010/v1' },
        TOKEN,
        await openKeychain({}, 'linux'),
      ),
    ).toBe('file');
    expect(JSON.parse(readFileSync(profiles.path, 'utf8')).profiles.default.token).toBe(TOKEN);
    expect(statSync(profiles.path).mode & 0o777).toBe(0o600);
  });

  it('the real @napi-rs/keyring with a session bus but no Secret Service fails fast and falls back', async () => {
    const keychain = await openKeychain({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${dir.dir}/no-bus` }, 'linux');
    expect(keychain?.kind).toBe('keychain');
    const started = Date.now();
    expect(await saveProfileToken(profiles, 'default', { base_url: 'http://127.0.0.1:4010/v1' }, TOKEN, keychain)).toBe(
      'file',
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(profiles.get('default')?.token).toBe(TOKEN);
  });

  it('a config file from before keychains and host binding keeps its token, bound to its base URL', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      profiles.path,
      JSON.stringify({
        current_profile: 'prod',
        profiles: { prod: { base_url: 'https://prod.example/api/v1', token: TOKEN, workspace: 'w' } },
      }),
    );
    const t = resolveTarget({ baseUrl: 'https://prod.example/v1' }, {}, profiles);
    expect([t.token, t.storage, t.profile]).toEqual([TOKEN, 'file', 'prod']);
    expect(resolveTarget({ baseUrl: 'http://prod.example/v1' }, {}, profiles).token).toBeUndefined();
  });
});
