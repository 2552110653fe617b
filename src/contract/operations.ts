import type { z } from 'zod';
import { CONTRACT_VERSION, routes, type OperationId, type Route } from './table.js';
import type { OperationSchemas } from './route.js';
import { accountSchemas } from './account.js';
import { listingSchemas } from './listings.js';
import { formSchemas } from './forms.js';
import { pageSchemas } from './pages.js';
import { knowledgeSchemas } from './knowledge.js';
import { engagementSchemas } from './engagement.js';
import { publicSchemas } from './public.js';
import { oauthSchemas } from './oauth.js';

export type { OperationSchemas };

/** One v1 operation: its route (table.ts) and its schemas, everything the router, validator, OpenAPI document and client need. */
export type Operation<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> = Route & OperationSchemas<P, Q, B, R> & { operationId: string };

/** Every operation's schemas, joined from the areas' files; TypeScript refuses a route without schemas. */
const schemas = {
  ...accountSchemas,
  ...listingSchemas,
  ...formSchemas,
  ...pageSchemas,
  ...knowledgeSchemas,
  ...engagementSchemas,
  ...publicSchemas,
  ...oauthSchemas,
} satisfies Record<OperationId, OperationSchemas>;

/** Schemas without a route would be spread in silently: refuse them here. */
type SchemasWithoutRoute = Exclude<keyof typeof schemas, OperationId>;
const everySchemaHasARoute: [SchemasWithoutRoute] extends [never] ? true : SchemasWithoutRoute = true;
void everySchemaHasARoute;

type Operations = { [K in OperationId]: { operationId: K } & (typeof routes)[K] & (typeof schemas)[K] };

/** The contract: each route of table.ts with its schemas. */
export const operations = Object.fromEntries(
  (Object.keys(routes) as OperationId[]).map((id) => [id, { operationId: id, ...routes[id], ...schemas[id] }]),
) as Operations;

export type { OperationId };
export type AnyOperation = Operation<z.ZodObject, z.ZodObject, z.ZodType | undefined, z.ZodType>;
export const operationList: AnyOperation[] = Object.values(operations) as AnyOperation[];

export function getOperation(id: string): AnyOperation | undefined {
  return Object.hasOwn(operations, id) ? (operations as Record<string, AnyOperation>)[id] : undefined;
}

export { CONTRACT_VERSION };
