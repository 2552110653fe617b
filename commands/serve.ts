import path from 'node:path';
import { defineCommand } from '../src/cli/command.js';
import { CliError, UsageError } from '../src/cli/errors.js';
import type { Factory } from '../src/cli/factory.js';
import type { SecretSource } from '../src/server/context.js';
import type { Profile } from '../src/cli/config.js';

type ServeOptions = {
  host: string;
  port: string;
  data?: string;
  store?: string;
  seed?: string[];
  rateLimit?: string;
  logBodies?: boolean;
  payments?: 'local' | 'stripe';
  publicUrl?: string;
  allowedHost?: string[];
  allowedOrigin?: string[];
  trustProxy?: string[];
  showSecrets?: boolean;
};

export default defineCommand<ServeOptions>({
  path: ['serve'],
  summary: 'Run the embedded v1 API server on a durable JSON-file store',
  description:
    'On an empty store without --seed, creates an owner, a workspace and an all-abilities token,\n' +
    'saves them as profile `local`, and prints the token once. While another server still answers\n' +
    "to `local`'s token, this one saves profile `local-PORT` instead (or --profile NAME), and says so.\n" +
    'SIGINT/SIGTERM finish in-flight requests, flush the store and exit 0.',
  examples: [
    'wcm serve',
    'wcm serve --port 0 --data /tmp/wcm.json --seed fixtures/demo.json',
    'wcm serve --host 0.0.0.0 --public-url https://sandbox.example.com',
  ],
  options: [
    { flags: '--host <host>', description: 'address to listen on', default: '127.0.0.1' },
    { flags: '--port <port>', description: 'port (0 picks a free one)', default: '4010' },
    {
      flags: '--public-url <url>',
      description:
        'the origin clients use, e.g. https://sandbox.example.com behind a TLS proxy (env WCM_PUBLIC_URL); OAuth issuer, links and redirects use it',
    },
    {
      flags: '--allowed-host <name>',
      description:
        'also answer requests whose Host is this name (repeatable; .example.com for subdomains; * for any, which disables DNS-rebinding protection)',
      repeatable: true,
    },
    {
      flags: '--allowed-origin <origin>',
      description: 'let web pages from this origin call the server (repeatable), e.g. https://app.example.com',
      repeatable: true,
    },
    {
      flags: '--trust-proxy <address>',
      description:
        'take the client address from X-Forwarded-For when the peer is this proxy: an address or CIDR range (repeatable; env WCM_TRUST_PROXY, comma-separated); rate limits and idempotency scopes then count each client behind it',
      repeatable: true,
    },
    { flags: '--data <file>', description: 'data file (default .wcm/store.json in the working directory)' },
    {
      flags: '--store <url>',
      description:
        'keep the data in PostgreSQL instead of a file: postgres://USER:PASS@HOST:PORT/DB (env WCM_STORE), shared by every wcm serve on that database; `embedded` starts one in .wcm/postgres',
    },
    {
      flags: '--seed <fixture>',
      description: 'store fixture to load into an empty store (repeatable)',
      repeatable: true,
    },
    {
      flags: '--show-secrets',
      description:
        'print a generated owner token, admin token and signing secret even when stdout is not a terminal (a log keeps them)',
    },
    {
      flags: '--log-bodies',
      description:
        'keep request bodies in the request log (`wcm logs`), with tokens, secrets, card numbers and e-mail addresses masked',
    },
    { flags: '--rate-limit <n>', description: 'public requests per minute per client and route (default 60)' },
    {
      flags: '--payments <provider>',
      description: 'payment provider (default local; stripe when STRIPE_SECRET_KEY is set)',
      choices: ['local', 'stripe'],
    },
  ],
  async run(opts, f) {
    const port = Number(opts.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`\`--port\` must be an integer from 0 to 65535; received \`${opts.port}\`.`);
    let rateLimit: number | undefined;
    if (opts.rateLimit !== undefined) {
      rateLimit = Number(opts.rateLimit);
      if (!Number.isInteger(rateLimit) || rateLimit < 1)
        throw new UsageError(`\`--rate-limit\` must be a positive integer; received \`${opts.rateLimit}\`.`);
    }
    const trust = {
      publicUrl: opts.publicUrl ?? (f.env.WCM_PUBLIC_URL || undefined),
      allowedHosts: opts.allowedHost,
      allowedOrigins: opts.allowedOrigin,
      trustProxy:
        opts.trustProxy ??
        (f.env.WCM_TRUST_PROXY
          ? f.env.WCM_TRUST_PROXY.split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : undefined),
    };
    const { checkTrustOptions, TrustOptionError } = await import('../src/server/trust/config.js');
    try {
      checkTrustOptions(trust);
    } catch (err) {
      if (err instanceof TrustOptionError)
        throw new UsageError(
          (opts.publicUrl === undefined && trust.publicUrl !== undefined
            ? err.message.replace('`--public-url`', '`WCM_PUBLIC_URL`')
            : err.message
          ).replace('`--trust-proxy`', opts.trustProxy === undefined ? '`WCM_TRUST_PROXY`' : '`--trust-proxy`'),
        );
      throw err;
    }
    const dataFile = path.resolve(f.cwd, opts.data ?? '.wcm/store.json');
    // A seed file that does not exist is said before anything is opened or created (no data file,
    // no journal, no embedded database).
    if (opts.seed?.length) {
      const { checkFixturesExist, FixtureNotFoundError } = await import('../src/store/fixtures/seed.js');
      await checkFixturesExist(opts.seed.map((s) => path.resolve(f.cwd, s))).catch((err: unknown) => {
        throw err instanceof FixtureNotFoundError ? new CliError(err.message, 1) : err;
      });
    }
    const { storeUrlOf, maskUrl } = await import('../src/cli/local.js');
    let storeUrl = storeUrlOf(f, opts);
    // The store as the user gave it (a `?passfile=` kept, the password it holds never shown).
    let shownStore = storeUrl && maskUrl(opts.store ?? f.env.WCM_STORE ?? '');
    let embedded: { url: string; shareUrl: string; port: number; stop(): Promise<void> } | undefined;
    if (storeUrl === 'embedded') {
      const dir = path.resolve(f.cwd, '.wcm/postgres');
      const { startEmbeddedStore } = await import('../src/embedded-postgres/embedded-store.js');
      try {
        embedded = await startEmbeddedStore(dir);
      } catch (err) {
        throw new CliError(`Cannot start the embedded PostgreSQL in ${dir}: ${(err as Error).message}`);
      }
      storeUrl = embedded.url;
      shownStore = embedded.shareUrl;
      // The URL of the database's own role (not the superuser's), its password in a file: safe to print.
      f.io.stderr.write(
        `PostgreSQL (embedded) in ${dir} on 127.0.0.1:${embedded.port}; other processes share it with --store '${embedded.shareUrl}'\n`,
      );
    }
    const { startLocalServer } = await import('../src/server/serve.js');
    const { StoreLockedError } = await import('../src/store/json/lock.js');
    const { FixtureError } = await import('../src/store/fixtures/import.js');
    const { StoreCorruptError } = await import('../src/store/json/store.js');
    const { extendServer } = await import('../src/server/extend.js');
    let server;
    try {
      server = await startLocalServer({
        dataFile,
        storeUrl,
        host: opts.host,
        port,
        seeds: opts.seed?.map((s) => path.resolve(f.cwd, s)),
        rateLimit,
        payments: opts.payments,
        env: f.env,
        extend: extendServer,
        log: (line) => f.io.stderr.write(`${line}\n`),
        logBodies: !!opts.logBodies,
        ...trust,
      });
    } catch (err) {
      if (err instanceof StoreLockedError || err instanceof FixtureError || err instanceof StoreCorruptError)
        throw new CliError(err.message);
      await embedded?.stop();
      if (storeUrl) await (await import('../src/cli/store-errors.js')).rethrowStoreError(err);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new CliError(
          `Port ${port} on ${opts.host} is already in use.`,
          1,
          'Stop what is using it, or pass `--port 0` for a free port.',
        );
      if (code === 'EACCES' || code === 'EADDRNOTAVAIL')
        throw new CliError(`Cannot listen on ${opts.host}:${port} (${code}).`);
      throw err;
    }
    // Signals are handled from the moment the port is open: a SIGTERM that arrives while the
    // lines below are printed must still finish requests, flush and exit 0.
    const running = server;
    const stopped = new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (sig: string) => {
        // Repeats (Ctrl-C pressed twice, a supervisor sending SIGTERM again) are ignored: shutdown
        // is bounded anyway (in-flight requests get 10 s).
        if (stopping) return;
        stopping = true;
        f.io.stderr.write(`\n${sig}: finishing in-flight requests and flushing the store…\n`);
        void running
          .close()
          .then(() => embedded?.stop())
          .then(resolve, (err) => {
            f.io.stderr.write(`error while stopping: ${(err as Error).message}\n`);
            resolve();
          });
      };
      // `on`, not `once`: a repeated signal must find a listener, or its default action would kill
      // the process before the flush.
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });
    const profileLines = await saveServeProfile(
      f,
      server,
      storeUrl ? undefined : dataFile,
      f.io.isStdoutTTY || !!opts.showSecrets,
    );
    const out = f.io.stdout;
    out.write(`wcm listening on ${server.url}\n`);
    if (server.origin !== new URL(server.url).origin) out.write(`public URL: ${server.origin}\n`);
    out.write(
      storeUrl
        ? `store: ${shownStore} (shared: other wcm serve --store processes on it see the same data; the request log and faults stay per process)\n`
        : `data: ${dataFile}\n`,
    );
    out.write(`dashboard: ${server.origin}/dashboard (read-only; \`wcm open\` opens it at a record)\n`);
    for (const note of server.notes) (note.startsWith('warning:') ? f.io.stderr : out).write(`${note}\n`);
    for (const line of profileLines) out.write(`${line}\n`);
    // A big seed is answered from memory while its snapshot is written (writes wait for it): say
    // when it is on disk. A failure is logged by the server (stderr), and writes are refused.
    void server.seedDurable?.then(
      () => out.write(`seed saved to ${storeUrl ? shownStore : dataFile}\n`),
      () => undefined,
    );

    await stopped;
    return 0;
  },
});

type Started = Awaited<ReturnType<typeof import('../src/server/serve.js').startLocalServer>>;

/**
 * The profile `wcm serve` keeps (`local`, or `--profile NAME`): created on first run, kept pointing
 * at this server afterwards, with the control plane's admin token beside its token. Saved before
 * the first line is printed, so a script that waits for `wcm listening on` finds it. Returns the
 * lines to print.
 */
async function saveServeProfile(
  f: Factory,
  server: Started,
  dataFile: string | undefined,
  showSecrets: boolean,
): Promise<string[]> {
  const lines: string[] = [];
  const profiles = await f.profiles();
  const credentials = await import('../src/cli/credentials.js');
  const { storeHoldsToken } = await import('../src/server/serve.js');
  const keychain = Object.values(profiles.list()).some((p) => p.token_ref)
    ? await credentials.openKeychain(f.env)
    : null;
  const tokenOf = (p: Profile | undefined) => p?.token ?? (p?.token_ref ? keychain?.get(p.token_ref) : undefined);
  const { name, taken } = await chooseServeProfile(f, server, tokenOf);
  if (taken)
    lines.push(
      `profile \`${taken.name}\` holds a live token for ${taken.base_url} (another server), so this server uses profile \`${name}\``,
    );
  const before = profiles.get(name);
  // A second server's profile never becomes the active one by accident: the profile that was in
  // use (perhaps only because it was the only one) stays in use, whichever profile this start saves.
  await profiles.pinCurrent();
  const currentBefore = profiles.current();
  const fresh = server.bootstrap ?? server.seededToken;
  if (fresh) {
    await credentials.saveProfileToken(
      profiles,
      name,
      { base_url: server.url, workspace: fresh.workspaceId },
      fresh.token,
      await credentials.openKeychain(f.env),
    );
    if (before && before.base_url !== server.url)
      lines.push(
        `profile \`${name}\` pointed at ${before.base_url}, where no server answers for its token now; it now points at this server (pass \`--profile NAME\` to keep both)`,
      );
    await (await import('../src/cli/config.js')).useWhenNoneCurrent(profiles, name, currentBefore, f.io.stderr);
    if (server.bootstrap) {
      const use = profiles.current() === name ? '' : `--profile ${name} `;
      // One rule for every secret this start generates (the admin token and signing secret below
      // too): printed on a terminal, or with --show-secrets; never into a pipe or a log otherwise.
      lines.push(
        ...(showSecrets
          ? [
              `created an owner, workspace ${fresh.workspaceId} and an all-abilities token (shown once):`,
              `  ${fresh.token}`,
            ]
          : [
              `created an owner, workspace ${fresh.workspaceId} and an all-abilities token, not printed (stdout is not a terminal; \`wcm ${use}auth token\` prints it, or start with --show-secrets)`,
            ]),
        `saved as profile \`${name}\` in ${profiles.path}: in another terminal, try \`wcm ${use}lists ls\``,
      );
    } else
      lines.push(
        `profile \`${name}\` uses the fixture's first all-abilities token, workspace ${fresh.workspaceId}: try \`wcm ${profiles.current() === name ? '' : `--profile ${name} `}threads ls\``,
      );
  } else {
    // The token binds to the origin (issue 18): re-pointing the profile at this server's new port is
    // safe only because this server holds the token; it is saved again under the new origin.
    const token = tokenOf(before);
    if (before && token && (await storeHoldsToken(server.db, token))) {
      if (before.base_url !== server.url) {
        const { token: _t, token_ref: _r, ...rest } = before;
        await credentials.saveProfileToken(profiles, name, { ...rest, base_url: server.url }, token, keychain);
        lines.push(`profile \`${name}\` now points at ${server.url}`);
      }
    } else {
      // Another profile holds a token this store holds (the server moved to another port, or runs
      // under `--profile NAME`): this profile gets that token, for this server's address. The store
      // holding it is what makes sending it here safe.
      const all = profiles.list();
      let donor: string | undefined;
      for (const n of Object.keys(all).sort()) {
        const t = n === name ? undefined : tokenOf(all[n]);
        if (t && (await storeHoldsToken(server.db, t))) {
          donor = n;
          break;
        }
      }
      if (donor) {
        const d = all[donor];
        const known = d.workspace && (await server.db.read((tx) => tx.get('workspaces', d.workspace!)));
        const ws = known ? d.workspace : undefined;
        await credentials.saveProfileToken(
          profiles,
          name,
          { base_url: server.url, ...(ws ? { workspace: ws } : {}) },
          tokenOf(d)!,
          keychain ?? (await credentials.openKeychain(f.env)),
        );
        lines.push(
          `profile \`${name}\` now holds this server's token (the one profile \`${donor}\` holds), for ${server.url}`,
        );
      } else {
        lines.push(...noWayIn(dataFile));
      }
    }
  }
  // The profile that points at this server: the chosen one, else another one saved for this
  // address whose token this store holds (so the admin token is never said to be "in no profile"
  // while a profile holds this server's token).
  const saved = profiles.get(name);
  let oursName: string | undefined = saved && saved.base_url === server.url ? name : undefined;
  if (!oursName) {
    const all = profiles.list();
    for (const n of Object.keys(all).sort()) {
      const t = all[n].base_url === server.url ? tokenOf(all[n]) : undefined;
      if (t && (await storeHoldsToken(server.db, t))) {
        oursName = n;
        break;
      }
    }
  }
  const ours = oursName ? profiles.get(oursName) : undefined;
  const services = server.app.services;
  const webhook = services.secretSources?.webhook !== 'env' ? services.webhookSecret : undefined;
  if (oursName && ours && (ours.admin_token !== server.adminToken || (webhook && ours.webhook_secret !== webhook))) {
    await profiles.set(oursName, {
      ...ours,
      ...(server.adminToken ? { admin_token: server.adminToken } : {}),
      ...(webhook ? { webhook_secret: webhook } : {}),
    });
  }
  if (oursName && !fresh && !lines.length)
    lines.push(
      `profile \`${oursName}\` holds this server's token: \`wcm ${oursName === profiles.current() ? '' : `--profile ${oursName} `}threads ls\``,
    );
  return [...lines, ...secretLines(server, oursName, profiles.path, showSecrets)];
}

/**
 * Which profile this server saves to: `--profile NAME` when given; else `local`, unless `local`
 * holds a token that another server (at another address) answers to right now: that profile is
 * never taken over, and the server uses `local-PORT` (then `local-PORT-2`, …) under the same rule.
 * A profile whose server is gone, or that already points at this address, is this server's to use.
 */
async function chooseServeProfile(
  f: Factory,
  server: Started,
  tokenOf: (p: Profile | undefined) => string | undefined,
): Promise<{ name: string; taken?: { name: string; base_url: string } }> {
  if (f.globals.profile) return { name: f.globals.profile };
  const all = (await f.profiles()).list();
  const port = new URL(server.url).port;
  let taken: { name: string; base_url: string } | undefined;
  for (let i = 0; ; i++) {
    const name = i === 0 ? 'local' : i === 1 ? `local-${port}` : `local-${port}-${i}`;
    const p = all[name];
    const token = tokenOf(p);
    if (!p || !token || p.base_url === server.url || !(await answersFor(p.base_url, token)))
      return { name, ...(taken ? { taken } : {}) };
    taken ??= { name, base_url: p.base_url };
  }
}

/** Whether a server answers at `baseUrl` for `token` right now (GET /v1/me, 2xx), within a second. */
async function answersFor(baseUrl: string, token: string): Promise<boolean> {
  const url = new URL(`${baseUrl}/me`);
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve) => {
    const req = request(
      url,
      { headers: { authorization: `Bearer ${token}` }, timeout: 1000 },
      (res: import('node:http').IncomingMessage) => {
        res.resume();
        resolve((res.statusCode ?? 500) >= 200 && (res.statusCode ?? 500) < 300);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/**
 * How the admin token and the signing secret are announced (TRUST §5): one from the environment
 * is never printed; a generated one is printed this once, and only on a terminal or with
 * --show-secrets (a log file or a CI transcript keeps what is printed), the same rule as the owner
 * token's; otherwise the line says where it is kept.
 */
function secretLines(server: Started, profile: string | undefined, configPath: string, showSecrets: boolean): string[] {
  const { secretSources: sources, adminToken: admin, webhookSecret: webhook } = server.app.services;
  if (!sources) return [];
  const show = (what: string, value: string | undefined, source: SecretSource, envName: string) => {
    if (source === 'env') return `${what} from ${envName}`;
    const where = profile
      ? `saved in profile \`${profile}\` (${configPath})`
      : `in no profile: set ${envName} to choose it`;
    if (source === 'generated' && showSecrets && value) return `${what} ${value} (generated now, shown once; ${where})`;
    return `${what} ${source === 'generated' ? 'generated now' : 'kept in the store'}, not printed; ${where}`;
  };
  return [
    show('control plane (/_emulator, `wcm local …`, `wcm logs`): admin token', admin, sources.admin, 'WCM_ADMIN_TOKEN'),
    show(
      'payment notifications (POST /v1/webhooks/payments): signing secret',
      webhook,
      sources.webhook,
      'WCM_WEBHOOK_SECRET',
    ),
  ];
}

/** What to say when no saved profile holds a token of this store: how to get in. */
function noWayIn(dataFile: string | undefined): string[] {
  if (!dataFile)
    return ['no saved profile holds a token for this store: `wcm local token --store URL` prints a fresh owner token'];
  const data = shellQuote(dataFile);
  return [
    `no saved profile holds a token for this store: \`wcm local token --data ${data}\` prints a fresh owner token`,
    `  (stop this server first), or remove ${data} to start over with a new owner`,
  ];
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
