import type { z } from 'zod';
import { Problem } from './common.js';
import { CONTRACT_VERSION, operationList, type AnyOperation } from './operations.js';
import { ABILITIES } from './enums.js';
import { addExamples } from './openapi-examples.js';
import { Components, type Json } from './openapi-components.js';

/** Response headers, declared so generated clients type them. */
const HEADER = {
  requestId: {
    description: 'The request id (echoed when the request sent a valid `X-Request-Id`).',
    schema: { type: 'string' },
  },
  replayed: {
    description: '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  limit: { description: 'Requests allowed per minute for this client and route.', schema: { type: 'integer' } },
  remaining: { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  reset: { description: 'Seconds until the window is full again.', schema: { type: 'integer' } },
  retryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  allow: { description: 'The methods this path answers.', schema: { type: 'string' } },
};
const rateLimitHeaders = {
  'RateLimit-Limit': HEADER.limit,
  'RateLimit-Remaining': HEADER.remaining,
  'RateLimit-Reset': HEADER.reset,
};

const problemResponse = (description: string, headers: Json = {}) => ({
  description,
  headers: { 'X-Request-Id': HEADER.requestId, ...headers },
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** What the payment processor sends (a Stripe event): typed enough for clients, open for the rest. */
const PAYMENT_EVENT = {
  type: 'object',
  properties: {
    id: {
      type: 'string',
      description: 'The event id (`evt_…`); each is applied once.',
      examples: ['evt_3QxTm2ExampleEvent01'],
    },
    type: {
      type: 'string',
      description: 'e.g. `payment_intent.succeeded`, `payment_intent.payment_failed`.',
      examples: ['payment_intent.succeeded'],
    },
    created: { type: 'integer', description: 'Unix time of the event.', examples: [1764000000] },
    data: {
      type: 'object',
      properties: {
        object: {
          type: 'object',
          additionalProperties: true,
          description: 'The object the event is about (a PaymentIntent).',
        },
      },
      required: ['object'],
      additionalProperties: true,
    },
  },
  required: ['id', 'type', 'data'],
  additionalProperties: true,
};

function parameters(op: AnyOperation, components: Components) {
  const out: Json[] = [];
  for (const [name, schema] of Object.entries(op.params.shape)) {
    out.push({ name, in: 'path', required: true, schema: components.add(schema as z.ZodType, 'input') });
  }
  for (const [name, schema] of Object.entries(op.query.shape)) {
    const s = schema as z.ZodType;
    const json = components.add(s, 'input');
    const description = json.description;
    delete json.description;
    out.push({
      name,
      in: 'query',
      required: !s.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema: json,
    });
  }
  if (op.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      description: 'A stable key (8 to 120 visible ASCII characters) to retry safely; kept 24 hours.',
      schema: { type: 'string', minLength: 8, maxLength: 120, pattern: '^[\\x21-\\x7E]{8,120}$' },
    });
  }
  if (op.access === 'signature') {
    out.push({ name: 'Stripe-Signature', in: 'header', required: true, schema: { type: 'string' } });
  }
  return out;
}

function operationObject(op: AnyOperation, components: Components): Json {
  const data = components.add(op.response, 'output');
  const meta = op.list
    ? {
        type: 'object',
        properties: { request_id: { type: 'string' }, next_cursor: { type: ['string', 'null'] } },
        required: ['request_id', 'next_cursor'],
      }
    : { type: 'object', properties: { request_id: { type: 'string' } }, required: ['request_id'] };
  const envelope = {
    type: 'object',
    properties: { data: op.list ? { type: 'array', items: data } : data, meta },
    required: ['data', 'meta'],
  };
  const successHeaders: Json = { 'X-Request-Id': HEADER.requestId };
  if (op.access === 'public') Object.assign(successHeaders, rateLimitHeaders);
  if (op.access === 'public' && op.idempotent) successHeaders['Idempotent-Replayed'] = HEADER.replayed;
  const responses: Json = {
    [String(op.status)]: {
      description: op.status === 201 ? 'Created' : 'OK',
      headers: successHeaders,
      content: { 'application/json': { schema: envelope } },
    },
  };
  if (op.body || op.list || Object.keys(op.query.shape).length)
    responses['400'] = problemResponse('Bad request (invalid JSON, cursor or idempotency key)');
  if (op.access === 'bearer' || op.access === 'token') {
    responses['401'] = problemResponse('Missing or invalid token');
    responses['403'] = problemResponse('Token lacks the ability, or its user is not a member of the workspace');
  }
  if (Object.keys(op.params.shape).length) responses['404'] = problemResponse('Not found');
  if (op.idempotent)
    responses['409'] = problemResponse('The same Idempotency-Key is still in flight', {
      'Retry-After': HEADER.retryAfter,
    });
  responses['405'] = problemResponse('Method not allowed on this path', { Allow: HEADER.allow });
  if (op.body) {
    responses['413'] = problemResponse('Body over 1 MiB');
    responses['415'] = problemResponse('Body is not application/json');
  }
  responses['422'] = problemResponse('Validation failed');
  if (op.access === 'public')
    responses['429'] = problemResponse('Rate limited', { 'Retry-After': HEADER.retryAfter, ...rateLimitHeaders });
  responses['503'] = problemResponse('Unavailable (shutting down, or an injected fault)', {
    'Retry-After': HEADER.retryAfter,
  });
  if (op.access === 'signature')
    responses['400'] = problemResponse(
      'Bad request, or `invalid_signature`: the Stripe-Signature header does not verify',
    );
  responses['default'] = problemResponse('Error');

  const out: Json = {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    parameters: parameters(op, components),
    responses,
  };
  // Every operation has a description (what it does, what it needs), as linters and generated docs expect.
  out.description = [
    op.description ?? `${op.summary}.`,
    op.aliasOf ? `Compatibility alias of \`${op.aliasOf}\`; behaves the same.` : undefined,
    op.ability
      ? `Needs the \`${op.ability}\` ability${Object.hasOwn(op.params.shape, 'workspace') ? ' and membership of the workspace' : ''}.`
      : op.access === 'public'
        ? 'Public: no token; rate-limited per client and route.'
        : op.access === 'token'
          ? 'Any valid token.'
          : undefined,
  ]
    .filter(Boolean)
    .join('\n\n');
  if (op.body) {
    out.requestBody = {
      required: !op.bodyOptional,
      content: { 'application/json': { schema: components.add(op.body, 'input') } },
    };
  } else if (op.access === 'signature') {
    out.requestBody = { required: true, content: { 'application/json': { schema: PAYMENT_EVENT } } };
  }
  if (op.access === 'bearer' || op.access === 'token') {
    out.security = [{ bearer: [] }];
    if (op.ability) out['x-ability'] = op.ability;
  } else {
    out.security = [];
  }
  if (op.extension) out['x-extension'] = true;
  return out;
}

/** What each tag covers, in the contract's words. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Onboarding: 'Human-verified agent onboarding',
  Workspaces: 'Workspace, team and domain management',
  Pages: 'Hosted public pages',
  Agents: 'Workspace agent profile and behaviour configuration',
  Forms: 'Contact content: forms',
  Knowledge: 'Knowledge lists and articles, and listings',
  Booking: 'Booking types and bookings',
  Telephony: 'Call flows, phone numbers and voice interactions',
  Commerce: 'One-time orders and card payments',
  Conversations: 'Contact-centric threads and messages across chat, email, messaging app and forms',
  'Engagement inbox': 'Inbox views of engagement records',
  'Public actions': 'Public, rate-limited actions that may require human confirmation',
  OAuth:
    'Registered OAuth applications and the grants users gave them (extension; the flow itself is at /oauth, see /.well-known/oauth-authorization-server)',
};

/** The OpenAPI 3.1 document, generated from the operations table. */
export function buildOpenApi(serverUrl = '/v1'): Json {
  const components = new Components();
  const paths: Record<string, Json> = {};
  for (const op of operationList) {
    const item = (paths[op.path] ??= {});
    item[op.method.toLowerCase()] = operationObject(op, components);
  }
  components.add(Problem, 'output');
  addExamples(paths, components.schemas);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace Contact Management API',
      version: CONTRACT_VERSION,
      description: 'Served by `wcm serve`. Operations marked `x-extension` are additions of this implementation.',
      license: { name: 'Proprietary (private package)', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'wcm maintainers' },
    },
    servers: [
      { url: serverUrl, description: 'Canonical base address' },
      { url: serverUrl.replace(/\/v1$/, '/api/v1'), description: 'Application-domain alias (same contract)' },
    ],
    tags: [...new Set(operationList.map((o) => o.tag))].map((name) => ({
      name,
      description: TAG_DESCRIPTIONS[name] ?? name,
    })),
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `Personal access token (wcm_pat_…) or OAuth access token (wcm_oat_…). Abilities: ${ABILITIES.join(', ')}.`,
        },
      },
    },
  };
}
