import { defineCommand } from '../src/cli/command.js';

export default defineCommand<{ remote?: boolean }>({
  path: ['openapi'],
  summary: 'Print the OpenAPI 3.1 document of the v1 contract',
  description:
    'Built from the same zod schemas the server validates with; no network needed. With --remote, the\ndocument the target server publishes at /openapi.json.',
  examples: ['wcm openapi > openapi.json', 'wcm openapi --remote --base-url https://api.example.com/v1'],
  options: [{ flags: '--remote', description: 'fetch GET /openapi.json from the target server instead' }],
  async run(opts, f) {
    if (opts.remote) {
      const client = await f.client({ requireToken: false });
      const res = await client.request({ method: 'GET', path: '/openapi.json', anonymous: true });
      f.io.stdout.write((typeof res.body === 'string' ? res.body : JSON.stringify(res.body, null, 2)) + '\n');
      return 0;
    }
    const { buildOpenApi } = await import('../src/contract/openapi.js');
    f.io.stdout.write(JSON.stringify(buildOpenApi(), null, 2) + '\n');
    return 0;
  },
});
