import { z } from 'zod';
import { ORDER_STATES, SOURCE_TYPES } from '../../contract/enums.js';
import { JsonObject, noQuery, pagingQuery, Timestamp, Uuid, wsParam } from '../../contract/common.js';
import type { OperationId } from '../../contract/table.js';
import type { OperationSchemas } from '../../contract/route.js';

/** What the list extension shows of each offer and agent: enough to recognise it and take its id to the command that needs it. */
export const OfferSummary = z
  .object({
    id: Uuid,
    kind: z.enum(['fixed', 'contribution']),
    title: z.string(),
    currency: z.string(),
    unit_amount_minor: z.number().int().nullable(),
    active: z.boolean(),
  })
  .meta({ id: 'OfferSummary' });
export const AgentSummary = z.object({ id: Uuid, name: z.string() }).meta({ id: 'AgentSummary' });

export const CreatePaymentIntentBody = z
  .strictObject({
    amount_minor: z.number().int().min(1000).max(10_000_000).optional().meta({
      description: 'Required for contribution offers, ignored for fixed-price offers. Minor currency units.',
    }),
    quantity: z.number().int().min(1).max(100).default(1),
    customer_name: z.string().max(255).optional(),
    customer_email: z.email().max(255).optional(),
    customer_message: z.string().max(2000).optional(),
    marketing_consent: z.boolean().optional(),
    source_type: z.enum(SOURCE_TYPES).optional(),
    source_id: z.string().max(191).optional(),
    attribution: JsonObject.optional(),
  })
  .meta({ id: 'CreatePaymentIntentBody' });

export const Order = z
  .object({
    id: Uuid,
    offer_id: Uuid,
    payment_state: z.enum(ORDER_STATES),
    quantity: z.number().int(),
    amount_total: z.number().int(),
    currency: z.string(),
    application_fee_amount: z.number().int(),
    payment_intent_id: z.string(),
    customer_name: z.string().nullable(),
    customer_email: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Order' });

export const PaymentIntent = z
  .object({
    id: z.string(),
    client_secret: z.string(),
    status: z.string(),
    amount: z.number().int(),
    currency: z.string(),
    application_fee_amount: z.number().int(),
  })
  .meta({ id: 'PaymentIntent' });

export const CreatedPaymentIntent = z
  .object({ order: Order, payment_intent: PaymentIntent })
  .meta({ id: 'CreatedPaymentIntent' });

export const AgentChatOpenedBody = z
  .strictObject({ button: Uuid.optional(), app: Uuid.optional() })
  .meta({ id: 'AgentChatOpenedBody' });

export const AgentChatOpened = z
  .object({
    id: Uuid,
    type: z.literal('agent.chat_opened'),
    agent_id: Uuid,
    button_id: Uuid.nullable(),
    app_id: Uuid.nullable(),
    occurred_at: Timestamp,
  })
  .meta({ id: 'AgentChatOpened' });

export const PaymentNotificationReceipt = z
  .object({ received: z.literal(true), event_id: z.string(), applied: z.boolean() })
  .meta({ id: 'PaymentNotificationReceipt' });

/** The schemas of the public area's operations (their routes: `routes.ts`). */
export const publicSchemas = {
  listOffers: { params: z.strictObject(wsParam), query: pagingQuery, body: undefined, response: OfferSummary },
  createPaymentIntent: {
    params: z.strictObject({ offer: Uuid }),
    query: noQuery,
    body: CreatePaymentIntentBody,
    response: CreatedPaymentIntent,
  },
  receivePaymentNotification: {
    params: z.strictObject({}),
    query: noQuery,
    body: undefined,
    response: PaymentNotificationReceipt,
  },
  listAgents: { params: z.strictObject(wsParam), query: pagingQuery, body: undefined, response: AgentSummary },
  recordAgentChatOpened: {
    params: z.strictObject({ agent: Uuid }),
    query: noQuery,
    body: AgentChatOpenedBody,
    response: AgentChatOpened,
  },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
