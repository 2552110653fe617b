import type { Handler } from '../server/context.js';
import { AREAS, type Area } from './areas.js';
import { accountHandlers } from './account/handlers.js';
import { listingHandlers } from './listings/handlers.js';
import { formHandlers } from './forms/handlers.js';
import { pageHandlers } from './pages/handlers.js';
import { knowledgeHandlers } from './knowledge/handlers.js';
import { engagementHandlers } from './engagement/handlers.js';
import { publicHandlers } from './public/handlers.js';
import { oauthHandlers } from './oauth/handlers.js';

const byArea = {
  account: accountHandlers,
  listings: listingHandlers,
  forms: formHandlers,
  pages: pageHandlers,
  knowledge: knowledgeHandlers,
  engagement: engagementHandlers,
  public: publicHandlers,
  oauth: oauthHandlers,
} satisfies Record<Area, [string, Handler][]>;

/** Every implemented operation's handler, by operationId, from the areas' folders (areas.ts). */
export const handlers: Record<string, Handler> = Object.fromEntries(AREAS.flatMap((area) => byArea[area]));
