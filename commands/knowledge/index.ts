import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import knowledgeLs from './ls.js';

/** `wcm knowledge`: its help line and its commands, in help order. */
export const knowledgeGroup = defineGroup({
  name: 'knowledge',
  summary: 'Knowledge lists: list them (their articles: `wcm articles`)',
  commands: [knowledgeLs] as CommandDef[],
});
