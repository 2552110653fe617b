import type { CommandDef } from '../../src/cli/command.js';
import authLogin from './login.js';
import authStatus from './status.js';
import authToken from './token.js';
import authLogout from './logout.js';

/** The `wcm auth` commands, in help order: a new verb is its file beside this one and one line here. */
export const authCommands = [authLogin, authStatus, authToken, authLogout] as CommandDef[];
