import { ownRoutes } from '../../contract/route.js';

const own = ownRoutes('form', 'Forms', 'Catering request');
/** The forms area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `schemas.ts`, handlers beside them. */
export const formRoutes = { getForm: own.get, updateForm: own.update, listForms: own.list };
