import { defineGroup, type CommandDef } from '../../src/cli/command.js';
import authLogin from './login.js';
import authStatus from './status.js';
import authToken from './token.js';
import authLogout from './logout.js';

/** `wcm auth`: its help line and its commands, in help order. */
export const authGroup = defineGroup({
  name: 'auth',
  summary: 'Log in with a token, show who you are, print or remove the token',
  commands: [authLogin, authStatus, authToken, authLogout] as CommandDef[],
});
