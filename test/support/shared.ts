import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** ../shared beside the repository: the specification, Slack's facts and the OCDS data, never copied in. */
export const SHARED_DIR = resolve(import.meta.dirname, '../../../shared');

/** A path inside ../shared, or a sentence saying where the folder must be. */
export function sharedPath(...parts: string[]): string {
  const path = join(SHARED_DIR, ...parts);
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: the shared/ folder must sit beside this repository, as it does in CI`,
    );
  }
  return path;
}
