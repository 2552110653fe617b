import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let cachedVersion: string | null = null;
/** The package version; works from dist/src (the binary) and from src (tests run the sources). */
export function packageVersion(): string {
  if (cachedVersion) return cachedVersion;
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8')) as {
        name?: string;
        version: string;
      };
      if (pkg.name === 'wcm') return (cachedVersion = pkg.version);
    } catch {
      /* not at this level */
    }
  }
  return (cachedVersion = '0.0.0');
}
