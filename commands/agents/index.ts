import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import agentsLs from './ls.js';
import agentsOpened from './opened.js';

/**
 * `wcm agents`: its help line and its commands, in help order (a new verb is its file beside this one
 * and one entry here; when the help line names the verbs, it names the new one too).
 */
export const agentsGroup = defineGroup({
  name: 'agents',
  summary: 'Agents: list them; record a chat open (public: no token)',
  commands: [agentsLs, agentsOpened] as CommandDef[],
});
