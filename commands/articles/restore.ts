import { defineCommand } from '../../src/cli/command.js';
import { printFields, printJson } from '../../src/cli/output.js';

export default defineCommand<{ publish?: boolean }>({
  path: ['articles', 'restore'],
  output: 'restoreArticleVersion',
  summary: 'Restore an article version as a new current version',
  description:
    'Creates version N+1 with the restored title and body. It is published only with --publish; --no-publish says\n' +
    'so explicitly (for scripts that pass one or the other). Either way the request sends `publish`, so the\n' +
    "server's own default never decides. Earlier versions never change.",
  args: [
    { name: 'LIST', description: 'knowledge list id', required: true, pick: 'knowledgeList' },
    { name: 'ARTICLE', description: 'article id', required: true, pick: 'article' },
    { name: 'VERSION', description: 'version number (1, 2, …) or version id', required: true, pick: 'articleVersion' },
  ],
  options: [
    { flags: '--publish', description: 'also make the new version the published one' },
    { flags: '--no-publish', description: 'leave the published version as it is (the default)' },
  ],
  examples: [
    'wcm articles restore 34245e7c-3e2f-40d4-838c-7d330fa624ba c8662610-465b-432d-bc0c-117f751f478a v1',
    'wcm articles restore 34245e7c-3e2f-40d4-838c-7d330fa624ba c8662610-465b-432d-bc0c-117f751f478a 2 --publish',
    'wcm articles restore 34245e7c-3e2f-40d4-838c-7d330fa624ba c8662610-465b-432d-bc0c-117f751f478a 2 --no-publish',
  ],
  async run(opts, f) {
    const [list, article, version] = opts.args;
    const workspace = await f.workspace();
    const client = await f.client();
    const res = await client.call('restoreArticleVersion', {
      params: { workspace, list, article, version },
      body: { publish: opts.publish === true },
    });
    const d = res.body.data;
    if (f.globals.json) {
      printJson(f.io.stdout, d);
      return 0;
    }
    if (f.io.isStdoutTTY) {
      f.io.stdout.write(
        `Restored version ${d.version.restored_from} as version ${d.version.number} (${d.version.published ? 'published' : 'not published'}).\n`,
      );
    }
    await printFields(f.io, [
      ['version', String(d.version.number)],
      ['published', String(d.version.published)],
      ['restored_from', String(d.version.restored_from)],
      ['version_id', d.version.id],
      ['article', d.article.id],
      ['title', d.version.title],
      ['published_version', d.article.published_version === null ? null : String(d.article.published_version)],
    ]);
    return 0;
  },
});
