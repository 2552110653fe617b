import { describe, expect, it } from 'vitest';
import { AREAS } from '../../src/api/areas.js';
import { handlers } from '../../src/api/handlers.js';
import { routes } from '../../src/contract/table.js';

/** The one export of an area's module whose name ends in `suffix` (`listingRoutes`, `listingSchemas`, …). */
async function areaExport(area: string, file: string, suffix: string): Promise<object> {
  // A variable specifier: the folder is the area's name, which is the point of the check.
  const url = new URL(`../../src/api/${area}/${file}.ts`, import.meta.url).href;
  const mod = (await import(/* @vite-ignore */ url)) as Record<string, object>;
  const names = Object.keys(mod).filter((n) => n.endsWith(suffix));
  expect(names, `${area}/${file}.ts exports one …${suffix}`).toHaveLength(1);
  return mod[names[0]];
}

// An operation lives whole in its area's folder: its route, its schemas and its handler side by side.
describe('each API area is one folder', () => {
  it.each(AREAS)('%s: routes, schemas and handlers name the same operations', async (area) => {
    const routeIds = Object.keys(await areaExport(area, 'routes', 'Routes')).sort();
    const schemaIds = Object.keys(await areaExport(area, 'schemas', 'Schemas')).sort();
    const handled = (await areaExport(area, 'handlers', 'Handlers')) as [string, unknown][];
    expect(schemaIds).toEqual(routeIds);
    expect(handled.map(([id]) => id).sort()).toEqual(routeIds);
  });

  it('every operation of the table has its handler', () => {
    expect(Object.keys(handlers).sort()).toEqual(Object.keys(routes).sort());
  });
});
