// Types for what the tests import from node22.mjs (tsconfig.test.json type-checks test/).
export const NODE22_PACKAGE: string;
/** The Node 22 binary's path, fetched from the npm registry (through npm's cache) on first use. */
export function node22(): Promise<string>;
