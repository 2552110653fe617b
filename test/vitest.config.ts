// Moved to the root (vitest.config.ts) so a bare `npx vitest run` gets the same isolation.
export { default } from '../vitest.config.js';
