import type { CommandDef } from '../../src/cli/command.js';
import voiceLs from './ls.js';

/** The `wcm voice` commands, in help order: a new verb is its file beside this one and one line here. */
export const voiceCommands = [voiceLs] as CommandDef[];
