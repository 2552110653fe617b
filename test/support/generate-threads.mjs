#!/usr/bin/env node
// Generates N conversation threads as a store fixture (docs/fixtures.md), deterministically: the same
// N, workspace and seed always give the same file, so benchmarks and tests can name what they expect.
//
//   node test/support/generate-threads.mjs 100000 /tmp/threads-100k.json [--workspace UUID] [--seed N]
//
// The threads belong to an existing workspace (demo.json's Acme Coffee by default), so seed the
// file after demo.json: `wcm serve --seed fixtures/demo.json --seed /tmp/threads-100k.json`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DEMO_WS1 = '775050e9-98e8-4600-8d0f-afce4b67e137';
const CHANNELS = ['web_chat', 'email', 'whatsapp', 'form'];
const FIRST = ['Maya', 'Tom', 'Ines', 'Kofi', 'Lena', 'Ravi', 'Sofia', 'Jun', 'Omar', 'Ada', 'Noor', 'Pablo'];
const LAST = ['Schultz', 'Nair', 'Okafor', 'Moreau', 'Lindqvist', 'Tanaka', 'Haddad', 'Costa', 'Novak', 'Reyes'];
const SUBJECTS = [
  "Order hasn't arrived",
  'Opening hours',
  'Refund request',
  'Table for six',
  'Gift card',
  'Wholesale prices',
  'Lost property',
  'Allergy question',
  null,
];
const BODIES = [
  'Hi, could you tell me when my order ships?',
  'Thanks, that works for us.',
  'Is the shop open on Sunday morning?',
  'I was charged twice for the same order.',
  'Can we bring a dog to the café?',
  'Sorry for the delay, we are looking into it now.',
];

/** A small seeded PRNG (mulberry32): fast, and the same sequence on every platform. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuid(rand) {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[Math.floor(rand() * 4)];
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * `count` threads in `workspaceId`. Last messages fall on whole minutes from `start` onwards, so
 * some threads share a `last_message_at` (the id tie-break gets exercised). Roughly 70 % open
 * (a third of those unread), 30 % closed, 10 % starred (`starredShare`); 1–4 messages over 1–3 channels.
 */
export function generateThreads({
  count,
  workspaceId = DEMO_WS1,
  seed = 1,
  start = '2025-01-01T00:00:00Z',
  starredShare = 0.1,
}) {
  const rand = prng(seed);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const t0 = Date.parse(start);
  const threads = [];
  for (let i = 0; i < count; i++) {
    const open = rand() < 0.7;
    const first = pick(FIRST);
    const last = pick(LAST);
    const hasEmail = rand() < 0.8;
    const n = 1 + Math.floor(rand() * 4);
    const channels = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(CHANNELS));
    const lastAt = t0 + Math.floor(i / 2 + rand() * 3) * 60_000;
    const messages = [];
    for (let m = 0; m < n; m++) {
      messages.push({
        id: uuid(rand),
        channel: channels[m % channels.length],
        direction: m % 2 === 0 ? 'inbound' : 'outbound',
        body: `${pick(BODIES)} (#${i}.${m})`,
        created_at: new Date(lastAt - (n - 1 - m) * 600_000).toISOString(),
      });
    }
    threads.push({
      id: uuid(rand),
      workspace_id: workspaceId,
      subject: pick(SUBJECTS),
      status: open ? 'open' : 'closed',
      unread: open && rand() < 0.33,
      starred: rand() < starredShare,
      contact: {
        id: uuid(rand),
        name: rand() < 0.9 ? `${first} ${last}` : null,
        email: hasEmail ? `${first}.${last}.${i}@mail.example`.toLowerCase() : null,
        phone: hasEmail ? null : `+4477009${String(i).padStart(5, '0')}`,
      },
      messages,
    });
  }
  return { version: 1, threads };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [countArg, out, ...rest] = process.argv.slice(2);
  const count = Number(countArg);
  if (!Number.isInteger(count) || count < 0 || !out) {
    console.error('usage: node test/support/generate-threads.mjs COUNT OUT.json [--workspace UUID] [--seed N]');
    process.exit(2);
  }
  const flag = (name) => {
    const i = rest.indexOf(name);
    return i === -1 ? undefined : rest[i + 1];
  };
  const fixture = generateThreads({
    count,
    workspaceId: flag('--workspace') ?? DEMO_WS1,
    seed: Number(flag('--seed') ?? 1),
  });
  writeFileSync(out, JSON.stringify(fixture));
  console.log(`wrote ${count} threads to ${out}`);
}
