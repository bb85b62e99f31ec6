/** What every subcommand of the command line shares: its usage error and option readers. */

/** A mistake in the command line: reported with the usage, exit code 2. */
export class UsageError extends Error {}

export const DEFAULT_SANDBOX_DB = './data/sandbox.db';

/** A whole number from the command line, or a usage error naming the option. */
export function integerOption(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`--${name} must be a whole number of at least ${min}`);
  return Number(value);
}
