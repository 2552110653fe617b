import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import agentsLs from './ls.js';
import agentsOpened from './opened.js';

/** `wcm agents`: its help line and its commands, in help order. */
export const agentsGroup = defineGroup({
  name: 'agents',
  summary: 'Agents: list them; record a chat open (public: no token)',
  commands: [agentsLs, agentsOpened] as CommandDef[],
});
