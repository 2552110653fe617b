import { defineCommand } from '../../src/cli/command.js';
import { UsageError } from '../../src/cli/errors.js';
import { printFields, printJson } from '../../src/cli/output.js';
import { announceIdempotencyKey, givenFlags, idempotencyKeyOption, publicCall } from '../../src/cli/public-call.js';

interface OpenedOptions {
  button?: string;
  app?: string;
  idempotencyKey?: string;
}

export default defineCommand<OpenedOptions>({
  path: ['agents', 'opened'],
  output: 'recordAgentChatOpened',
  summary: 'Record that a visitor opened an agent chat (public: no token needed)',
  description: 'One privacy-safe event per agent and Idempotency-Key: nothing about the visitor is sent or stored.',
  examples: [
    'wcm agents opened 78877ec3-e7f9-4eb3-b628-2184a18c24a4',
    'wcm agents opened 78877ec3-e7f9-4eb3-b628-2184a18c24a4 --idempotency-key visit-7f3a2c91',
  ],
  args: [{ name: 'AGENT', description: 'agent id (uuid)', required: true, pick: 'agent' }],
  options: [
    { flags: '--button <uuid>', description: 'the button the chat was opened from' },
    { flags: '--app <uuid>', description: 'the app the chat was opened in' },
    idempotencyKeyOption,
  ],
  async run(opts, f) {
    const agent = opts.args[0];
    if (!agent)
      throw new UsageError('Missing AGENT.', 'Example: wcm agents opened 78877ec3-e7f9-4eb3-b628-2184a18c24a4');
    const body: Record<string, string> = {};
    if (opts.button !== undefined) body.button = opts.button;
    if (opts.app !== undefined) body.app = opts.app;
    const key = announceIdempotencyKey(f, opts.idempotencyKey, [
      'wcm',
      'agents',
      'opened',
      agent,
      ...givenFlags({ '--button': opts.button, '--app': opts.app }),
    ]);
    const res = await publicCall(f, 'recordAgentChatOpened', { params: { agent }, body, idempotencyKey: key });
    const e = res.body.data;
    if (f.globals.json) printJson(f.io.stdout, e);
    else {
      await printFields(f.io, [
        ['event', e.id],
        ['type', e.type],
        ['agent', e.agent_id],
        ['button', e.button_id],
        ['app', e.app_id],
        ['occurred', e.occurred_at],
      ]);
    }
    return 0;
  },
});
