import type { z } from 'zod';
import { CONTRACT_VERSION, routes, type OperationId, type Route } from './table.js';
import type { OperationSchemas } from './route.js';
import { joinAreas, type Area } from '../api/areas.js';
import { accountSchemas } from '../api/account/schemas.js';
import { listingSchemas } from '../api/listings/schemas.js';
import { formSchemas } from '../api/forms/schemas.js';
import { pageSchemas } from '../api/pages/schemas.js';
import { knowledgeSchemas } from '../api/knowledge/schemas.js';
import { engagementSchemas } from '../api/engagement/schemas.js';
import { publicSchemas } from '../api/public/schemas.js';
import { oauthSchemas } from '../api/oauth/schemas.js';

export type { OperationSchemas };

/** One v1 operation: its route (table.ts) and its schemas, everything the router, validator, OpenAPI document and client need. */
export type Operation<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> = Route & OperationSchemas<P, Q, B, R> & { operationId: string };

/** Every operation's schemas, joined from the areas' folders; TypeScript refuses a route without schemas. */
const schemas = joinAreas({
  account: accountSchemas,
  listings: listingSchemas,
  forms: formSchemas,
  pages: pageSchemas,
  knowledge: knowledgeSchemas,
  engagement: engagementSchemas,
  public: publicSchemas,
  oauth: oauthSchemas,
} satisfies Record<Area, object>) satisfies Record<OperationId, OperationSchemas>;

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
