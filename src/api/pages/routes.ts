import { ownRoutes } from '../../contract/route.js';

const own = ownRoutes('page', 'Pages', 'Acme Coffee home');
/** The pages area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `schemas.ts`, handlers beside them. */
export const pageRoutes = { getPage: own.get, updatePage: own.update, listPages: own.list };
