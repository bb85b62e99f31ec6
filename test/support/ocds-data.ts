import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedPath } from './shared.ts';

/** The real OCDS files live beside the repository, never in it. */
export const OCDS_DIR = sharedPath('data', 'ocds');

export interface ReadmeCounts {
  file: string;
  releases: number;
  distinctOcids: number;
  buyersByName: number;
  suppliersByName: number;
}

/** The per-file counts of `../shared/data/ocds/README.md`, read from its table. */
export function readmeCounts(): ReadmeCounts[] {
  const readme = readFileSync(join(OCDS_DIR, 'README.md'), 'utf8');
  const rows = readme.split('\n').filter((line) => /^\| `[^`]+\.gz` \|/.test(line));
  return rows.map((row) => {
    const cells = row.split('|').map((cell) => cell.trim());
    const number = (cell: string | undefined) => Number((cell ?? '').split(' ')[0]?.replace(/,/g, ''));
    return {
      file: (cells[1] ?? '').replace(/`/g, ''),
      releases: number(cells[2]),
      distinctOcids: number(cells[3]),
      buyersByName: number(cells[4]),
      suppliersByName: number(cells[5]),
    };
  });
}
