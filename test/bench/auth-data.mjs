// The `pg-rss` row's data: many users, each a member of a small workspace, with two personal
// tokens and one OAuth access token (of a grant of theirs) apiece. Deterministic, like
// datasets.mjs; load.mjs's `rotate` walks the users so every request authenticates with another token.
import { createWriteStream, existsSync, renameSync } from 'node:fs';
import { once } from 'node:events';

export const PER_WORKSPACE = 10;
const READ = ['workspaces:read', 'content:read', 'engagements:read'];
const pad = (i) => String(i).padStart(8, '0');
const wsId = (w) => `00000000-0000-4000-8000-${w.toString(16).padStart(12, '0')}`;

/** User i's workspace and tokens (k 0 and 1 personal, 2 OAuth). */
export function benchUser(i) {
  return {
    id: `usr_bench${pad(i)}`,
    ws: wsId(Math.floor(i / PER_WORKSPACE)),
    tokens: [0, 1, 2].map((k) => `wcm_${k === 2 ? 'oat' : 'pat'}_bench${pad(i)}k${k}${'x'.repeat(20)}`),
    grant: `grant_bench${pad(i)}xxxxxxxx`,
  };
}

/** Writes the fixture (users, workspaces, 3 tokens and 1 grant per user) unless it is there already. */
export async function writeAuthFixture(file, users) {
  if (existsSync(file)) return file;
  const tmp = `${file}.tmp`;
  const out = createWriteStream(tmp);
  const put = async (s) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  const list = async (name, n, make, last = false) => {
    await put(`"${name}":[`);
    for (let i = 0; i < n; i++) await put((i ? ',' : '') + JSON.stringify(make(i)));
    await put(last ? ']' : '],\n');
  };
  const at = '2026-11-01T09:00:00.000Z';
  await put('{"version":1,\n');
  await list('users', users, (i) => ({ id: benchUser(i).id, name: `Bench ${i}`, email: `bench${i}@example.test` }));
  await list('workspaces', Math.ceil(users / PER_WORKSPACE), (w) => ({
    id: wsId(w),
    name: `Bench workspace ${w}`,
    members: Array.from({ length: Math.min(PER_WORKSPACE, users - w * PER_WORKSPACE) }, (_, j) => ({
      user_id: benchUser(w * PER_WORKSPACE + j).id,
      role: j ? 'member' : 'owner',
    })),
  }));
  await list('tokens', users * 3, (n) => {
    const i = Math.floor(n / 3);
    const k = n % 3;
    const u = benchUser(i);
    return k < 2
      ? { token: u.tokens[k], user_id: u.id, name: `bench-${k}`, abilities: READ }
      : {
          token: u.tokens[2],
          user_id: u.id,
          abilities: READ,
          audience: 'wcm-api-v1',
          workspace_ids: [u.ws],
          grant_id: u.grant,
          client_id: 'wcm-cli',
        };
  });
  await list(
    'oauth_grants',
    users,
    (i) => {
      const u = benchUser(i);
      return {
        id: u.grant,
        user_id: u.id,
        client_id: 'wcm-cli',
        abilities: READ,
        workspace_ids: [u.ws],
        audience: 'wcm-api-v1',
        created_at: at,
      };
    },
    true,
  );
  await put('}\n');
  out.end();
  await once(out, 'finish');
  renameSync(tmp, file);
  return file;
}

/** The read paths the load walks, for a workspace. */
export const READ_PATHS = (ws) => [
  `/workspaces/${ws}/lists?limit=20`,
  `/workspaces/${ws}/threads?limit=20`,
  `/workspaces/${ws}/bookings?limit=20`,
  `/workspaces/${ws}/pages?limit=20`,
];
