import { tz } from '@date-fns/tz';

/**
 * date-fns' context for counting in UTC, as cards, filters and stored days are: without it, date-fns
 * counts days, weeks and months in the machine's own zone, and a copy running in New York or
 * Kiritimati read "closes<14d" or "closing this month" as another day than one running in UTC.
 */
export const IN_UTC = { in: tz('UTC') } as const;
