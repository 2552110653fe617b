/*
 * Directories that hold data or secrets are 0700 (docs/security.md#control-plane-logs-and-files). wcm creates them so; one that
 * already exists is tightened only when it is wcm's own, by name: the default config directory,
 * the default data directory `.wcm`, and a data file's `FILE.snapshots`. A directory the user named
 * (WCM_CONFIG_DIR, the project directory of `--data ./store.json`, /tmp) keeps its mode: taking
 * others' access away from it could break what else lives there. docs/security.md states the rule.
 */
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { chmod, lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';

/** Group and other permissions. */
const SHARED = 0o077;

/** The data file's directory is wcm's own when it is named `.wcm` (the default `--data .wcm/store.json`). */
export const ownsDataDir = (file: string) => path.basename(path.dirname(path.resolve(file))) === '.wcm';

/**
 * Creates `dir` (and missing parents) 0700; when it exists and `owned`, takes group and other
 * permissions away. A symbolic link is left alone (it points at a directory the user chose), and so
 * is a directory wcm may not change (another user's): tightening is a precaution, not a condition.
 */
export async function privateDir(dir: string, owned: boolean): Promise<void> {
  if ((await mkdir(dir, { recursive: true, mode: 0o700 })) !== undefined || !owned) return;
  try {
    const st = await lstat(dir);
    if (st.isDirectory() && st.mode & SHARED) await chmod(dir, 0o700);
  } catch {
    /* see above */
  }
}

/** privateDir, for the config (its reads and writes are synchronous). */
export function privateDirSync(dir: string, owned: boolean): void {
  if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined || !owned) return;
  try {
    const st = lstatSync(dir);
    if (st.isDirectory() && st.mode & SHARED) chmodSync(dir, 0o700);
  } catch {
    /* see privateDir */
  }
}
