import { defineCommand } from '../src/cli/command.js';

export default defineCommand({
  path: ['openapi'],
  summary: 'Print the OpenAPI 3.1 document of the v1 contract',
  async run(_opts, f) {
    const { buildOpenApi } = await import('../src/contract/openapi.js');
    f.io.stdout.write(JSON.stringify(buildOpenApi(), null, 2) + '\n');
  },
});
