/**
 * Slack's date token as the app writes a moment (src/app/shared/views/mrkdwn.ts `localMoment`):
 * what a test expects where a card gives a time, each reader seeing it in their own zone.
 */
export function readerTime(iso: string, utcWords: string, shape: 'deadline' | 'moment' = 'deadline'): string {
  const tokens = shape === 'deadline' ? '{date_short} at {time} your time' : '{date_short} at {time}';
  return `<!date^${Math.floor(Date.parse(iso) / 1000)}^${tokens}|${utcWords}>`;
}
