// Types for what the tests import from cli-memory.mjs (tsconfig.test.json type-checks test/).

/** A listings page for request target `url`: as many items as the workspace id's first eight digits. */
export function generatedPage(url: string | undefined): {
  data: Array<{ id: string; title: string; dashboard_url: string }>;
  meta: { request_id: string; next_cursor: string | null };
};

export function benchCliMemory(ctx: object): Promise<void>;
