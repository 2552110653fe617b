import path from 'node:path';
import { defineCommand } from '../src/cli/command.js';
import { EXIT, UsageError } from '../src/cli/errors.js';

interface PullFlags {
  output?: string;
  only?: string;
  since?: string;
  maxThreads?: string;
  concurrency?: string;
  knowledgeList?: string[];
  scrub?: boolean;
  scrubKey?: string;
  resume?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function positiveInt(flag: string, raw: string | undefined, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new UsageError(`\`${flag}\` must be a whole number from 1 to ${max}; received \`${raw}\`.`);
  return n;
}

export default defineCommand<PullFlags>({
  path: ['pull'],
  summary: 'Copy one workspace of the target into a store fixture for `wcm serve --seed` (optionally scrubbed)',
  description: `Reads the workspace through v1 operations with your token (cursor paging, the get operations
where a list shows less than the record) and writes a store fixture: listings, forms, pages,
knowledge lists and articles, threads with their messages (every view), bookings, voice
interactions, offers and agents. Users, tokens and OAuth state are not copied: the fixture gets
one local owner and one all-abilities token for the same workspace id and name, and the command
prints how to serve it. What the target cannot show (an operation it lacks, an ability the token
lacks) is named in the summary. The file is written as FILE.partial and renamed when complete;
--resume continues an interrupted pull from FILE.partial.state.json.
--scrub replaces contact names, e-mails and phones, message bodies and transcripts, and e-mails
and phones in any other text, with stable pseudonyms (docs/cli.md: \`wcm pull\`).`,
  examples: [
    'wcm pull --output acme.json && wcm serve --seed acme.json --data acme.store.json',
    'wcm pull --scrub --output support-case.json --since 2026-10-01',
    'wcm pull --only threads,bookings --max-threads 500 --output sample.json',
    'wcm pull --output acme.json --resume',
  ],
  options: [
    {
      flags: '--output <file>',
      description: 'where to write the fixture (`-` for stdout; default wcm-pull-WORKSPACE.json)',
    },
    {
      flags: '--only <collections>',
      description:
        'comma-separated: listings, forms, pages, knowledge (lists and articles), threads, bookings, voice, offers, agents',
    },
    { flags: '--since <date>', description: 'threads with a message and bookings starting from this date or time on' },
    { flags: '--max-threads <n>', description: 'at most N threads (the newest of each view first)' },
    { flags: '--concurrency <n>', description: 'requests at a time for the get operations (default 4, at most 16)' },
    {
      flags: '--knowledge-list <id>',
      description: 'a knowledge list to copy that the target cannot list (repeatable)',
      repeatable: true,
    },
    { flags: '--scrub', description: 'replace personal data with stable pseudonyms before anything is written' },
    {
      flags: '--scrub-key <key>',
      description: "the pseudonyms' key, for the same pseudonyms across pulls (or WCM_SCRUB_KEY; implies --scrub)",
    },
    { flags: '--resume', description: 'continue the interrupted pull of the same --output' },
  ],
  async run(opts, f) {
    const { PULL_COLLECTIONS, ONLY_ALIASES } = await import('../src/pull/run.js');
    type C = (typeof PULL_COLLECTIONS)[number];
    // Every flag is checked before any request.
    let only: Set<C> = new Set(PULL_COLLECTIONS);
    if (opts.only !== undefined) {
      only = new Set();
      for (const word of opts.only
        .split(',')
        .map((w) => w.trim())
        .filter(Boolean)) {
        const hit = ONLY_ALIASES[word] ?? ((PULL_COLLECTIONS as readonly string[]).includes(word) ? [word as C] : null);
        if (!hit)
          throw new UsageError(
            `\`--only\` does not know \`${word}\`.`,
            'Use any of: listings, forms, pages, knowledge, threads, bookings, voice, offers, agents.',
          );
        for (const c of hit) only.add(c);
      }
      if (!only.size) throw new UsageError('`--only` names no collection.');
    }
    let since: string | undefined;
    if (opts.since !== undefined) {
      const t = Date.parse(/^\d{4}-\d\d-\d\d$/.test(opts.since) ? `${opts.since}T00:00:00Z` : opts.since);
      if (Number.isNaN(t))
        throw new UsageError(
          `\`--since\` must be a date or an ISO 8601 time; received \`${opts.since}\`.`,
          'e.g. --since 2026-10-01',
        );
      since = new Date(t).toISOString();
    }
    const maxThreads = positiveInt('--max-threads', opts.maxThreads, 10_000_000);
    const concurrency = positiveInt('--concurrency', opts.concurrency, 16) ?? 4;
    for (const id of opts.knowledgeList ?? [])
      if (!UUID.test(id))
        throw new UsageError(`\`--knowledge-list\` must be a knowledge list id (a UUID); received \`${id}\`.`);
    const scrubKey = opts.scrubKey ?? (opts.scrub ? f.env.WCM_SCRUB_KEY || undefined : undefined);
    const scrub = !!opts.scrub || opts.scrubKey !== undefined;
    const toStdout = opts.output === '-';
    if (toStdout && opts.resume)
      throw new UsageError('`--resume` needs `--output FILE`: a pull to stdout keeps nothing to resume from.');

    const workspace = await f.workspace();
    const output = toStdout ? null : path.resolve(f.cwd, opts.output ?? `wcm-pull-${workspace}.json`);
    const { tmpdir } = await import('node:os');
    const finalFile = output ?? path.join(tmpdir(), `wcm-pull-${process.pid}-${Date.now()}.json`);
    const partial = `${finalFile}.partial`;

    const base = await f.client();
    const { ApiClient } = await import('../src/client/client.js');
    // The same client, patient as a long run must be: 5xx retried with backoff too, more retries.
    const client = new ApiClient({
      ...base.options,
      retryServerErrors: true,
      retries: base.options.retries ?? 6,
    });
    const report = await import('../src/pull/report.js');
    const json = !!f.globals.json;
    const progress = f.io.isStderrTTY && !json ? await report.progress(f.io) : undefined;
    const { Puller, PullStopped } = await import('../src/pull/run.js');
    const puller = new Puller({
      client,
      workspace,
      partial,
      output: finalFile,
      only,
      since,
      maxThreads,
      concurrency,
      knowledgeLists: opts.knowledgeList ?? [],
      scrub,
      scrubKey,
      resume: !!opts.resume,
      onProgress: progress?.update,
      onNote: (n) => f.io.stderr.write(`${n}\n`),
    });
    const started = Date.now();
    let summary;
    try {
      summary = await puller.run();
    } catch (err) {
      progress?.clear();
      if (!(err instanceof PullStopped)) throw err;
      report.printStopped(f.io, err, { toStdout, json });
      throw err.cause;
    }
    progress?.clear();
    if (toStdout) await report.copyOut(finalFile, f.io);
    report.printSummary(toStdout ? f.io.stderr : f.io.stdout, summary, {
      json,
      seconds: (Date.now() - started) / 1000,
      file: output === null ? null : (opts.output ?? path.relative(f.cwd, finalFile)),
    });
    return EXIT.ok;
  },
});
