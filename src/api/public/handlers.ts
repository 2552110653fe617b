import { agentHandlers } from './agents.js';
import { commerceHandlers } from './commerce.js';
import { webhookHandlers } from './webhooks.js';

/** The public area's handlers: offers and payment intents, the payment webhook, agents; a file each. */
export const publicHandlers = [...commerceHandlers, ...webhookHandlers, ...agentHandlers];
