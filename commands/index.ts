import type { CommandDef } from '../src/cli/command.js';
import serve from './serve.js';
import open from './open.js';
import openapi from './openapi.js';
import seed from './seed.js';
import pull from './pull.js';
import api from './api.js';
import mcp from './mcp.js';
import logs from './logs.js';
import completion from './completion.js';
import { authCommands } from './auth/index.js';
import { profileCommands } from './profile/index.js';
import { listsCommands } from './lists/index.js';
import { formsCommands } from './forms/index.js';
import { pagesCommands } from './pages/index.js';
import { knowledgeCommands } from './knowledge/index.js';
import { articlesCommands } from './articles/index.js';
import { threadsCommands } from './threads/index.js';
import { bookingsCommands } from './bookings/index.js';
import { voiceCommands } from './voice/index.js';
import { localCommands } from './local/index.js';
import { offersCommands } from './offers/index.js';
import { commerceCommands } from './commerce/index.js';
import { agentsCommands } from './agents/index.js';
import { paymentsCommands } from './payments/index.js';
import { oauthCommands } from './oauth/index.js';

/**
 * Every command, in help order: the top-level commands and each group's own list (a group registers its
 * verbs in `commands/<group>/index.ts`). Definitions are light: each loads what it needs inside `run`, so
 * `wcm --help` loads none of the server, the store, stripe or the prompts.
 */
export const commands: CommandDef[] = [
  serve,
  ...authCommands,
  ...profileCommands,
  ...listsCommands,
  ...formsCommands,
  ...pagesCommands,
  ...knowledgeCommands,
  ...articlesCommands,
  ...threadsCommands,
  ...bookingsCommands,
  ...voiceCommands,
  open,
  ...localCommands,
  ...offersCommands,
  ...commerceCommands,
  ...agentsCommands,
  ...paymentsCommands,
  ...oauthCommands,
  openapi,
  seed,
  pull,
  api,
  mcp,
  logs,
  completion,
] as CommandDef[];
