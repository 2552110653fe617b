/**
 * The API's areas, named once. Each is a folder beside this file holding its operations whole:
 * `routes.ts` (zod-free), `schemas.ts` (zod) and its handlers. Three joins read this list, each a
 * `Record<Area, …>` so that a missing or unknown area is a type error: the routes (contract/table.ts,
 * which the CLI loads without zod), the schemas (contract/operations.ts) and the handlers
 * (`handlers.ts` here, which only the server loads). One module importing all three would make every
 * CLI start load zod and the server. The order is the OpenAPI document's order of operations.
 */
export const AREAS = ['account', 'listings', 'forms', 'pages', 'knowledge', 'engagement', 'public', 'oauth'] as const;

export type Area = (typeof AREAS)[number];

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The areas' maps as one, in AREAS order; an operationId claimed by two areas is refused. */
export function joinAreas<M extends Record<Area, object>>(byArea: M): Intersection<M[Area]> {
  const out: Record<string, unknown> = {};
  for (const area of AREAS) {
    for (const [id, value] of Object.entries(byArea[area])) {
      if (Object.hasOwn(out, id)) throw new Error(`operation ${id} is in two areas`);
      out[id] = value;
    }
  }
  return out as Intersection<M[Area]>;
}
