import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import threadsLs from './ls.js';
import threadsShow from './show.js';

/** `wcm threads`: its help line and its commands, in help order. */
export const threadsGroup = defineGroup({
  name: 'threads',
  summary: 'Conversation threads across chat, email, WhatsApp and forms: list, show',
  commands: [threadsLs, threadsShow] as CommandDef[],
});
