import type { CommandDef } from '../../src/cli/command.js';
import bookingsLs from './ls.js';

/** The `wcm bookings` commands, in help order: a new verb is its file beside this one and one line here. */
export const bookingsCommands = [bookingsLs] as CommandDef[];
