import type { CommandDef, GroupDef } from '../src/cli/command.js';
import serve from './serve.js';
import open from './open.js';
import openapi from './openapi.js';
import seed from './seed.js';
import pull from './pull.js';
import api from './api.js';
import mcp from './mcp.js';
import logs from './logs.js';
import completion from './completion.js';
import { authGroup } from './auth/index.js';
import { profileGroup } from './profile/index.js';
import { listsGroup } from './lists/index.js';
import { formsGroup } from './forms/index.js';
import { pagesGroup } from './pages/index.js';
import { knowledgeGroup } from './knowledge/index.js';
import { articlesGroup } from './articles/index.js';
import { threadsGroup } from './threads/index.js';
import { bookingsGroup } from './bookings/index.js';
import { voiceGroup } from './voice/index.js';
import { localGroup } from './local/index.js';
import { offersGroup } from './offers/index.js';
import { commerceGroup } from './commerce/index.js';
import { agentsGroup } from './agents/index.js';
import { paymentsGroup } from './payments/index.js';
import { oauthGroup } from './oauth/index.js';

/**
 * The top-level commands and the command groups, in help order (a group's help line and its verbs
 * are in its `commands/<group>/index.ts`: a new verb is its file there and one entry in that list;
 * when the help line names the verbs, it names the new one too). Definitions are light: each loads
 * what it needs inside `run`, so `wcm --help` loads none of the server, the store, stripe or the prompts.
 */
const entries: ReadonlyArray<CommandDef | GroupDef> = [
  serve,
  authGroup,
  profileGroup,
  listsGroup,
  formsGroup,
  pagesGroup,
  knowledgeGroup,
  articlesGroup,
  threadsGroup,
  bookingsGroup,
  voiceGroup,
  open,
  localGroup,
  offersGroup,
  commerceGroup,
  agentsGroup,
  paymentsGroup,
  oauthGroup,
  openapi,
  seed,
  pull,
  api,
  mcp,
  logs,
  completion,
];

const isGroup = (e: CommandDef | GroupDef): e is GroupDef => 'commands' in e && 'name' in e;

/** Every command, in help order. */
export const commands: CommandDef[] = entries.flatMap((e) => (isGroup(e) ? e.commands : [e]));

/** Every command group, in help order, with its help line. */
export const groups: GroupDef[] = entries.filter(isGroup);
