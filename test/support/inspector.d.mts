// Types for what the tests import from inspector.mjs (tsconfig.test.json type-checks test/).
export const INSPECTOR_NAME: string;
export const INSPECTOR_VERSION: string;
/** The entry point of the package's `mcp-inspector` bin, relative to its directory. */
export const INSPECTOR_CLI: string;
/** The installed package's directory, installed from the npm registry (through npm's cache) on first use. */
export function inspector(): Promise<string>;
