import type { Route } from '../route.js';

/** The public area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `../public.ts`. */
export const publicRoutes = {
  listOffers: {
    method: 'GET', path: '/workspaces/{workspace}/offers', tag: 'Commerce', summary: 'List the workspace\'s offers, by title', access: 'bearer', ability: 'content:read', status: 200, list: true, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  createPaymentIntent: {
    method: 'POST', path: '/public/commerce/offers/{offer}/payment-intents', tag: 'Commerce', summary: 'Create a one-time commerce order and card payment intent', access: 'public', status: 201, idempotent: true, bodyOptional: true, notFound: {offer: 'offer_not_found'},
    example: { body: { quantity: 1 } },
  },
  receivePaymentNotification: {
    method: 'POST', path: '/webhooks/payments', tag: 'Commerce', summary: 'Receive a signed payment notification (Stripe event format)', access: 'signature', status: 200, extension: true,
  },
  listAgents: {
    method: 'GET', path: '/workspaces/{workspace}/agents', tag: 'Public actions', summary: 'List the workspace\'s agents, by name', access: 'bearer', ability: 'content:read', status: 200, list: true, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  recordAgentChatOpened: {
    method: 'POST', path: '/public/agents/{agent}/analytics-events/opened', tag: 'Public actions', summary: 'Record an agent chat open', access: 'public', status: 201, idempotent: true, bodyOptional: true, notFound: {agent: 'agent_not_found'},
    example: { body: {} },
  },
} as const satisfies Record<string, Route>;
