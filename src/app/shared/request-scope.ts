/**
 * The workspace a request is for, as Bolt decided it when it picked the token (`context.teamId`:
 * for a modal opened through a shared channel that is the installing workspace, not the
 * person's), so that the keys and settings used are those of the workspace whose token answers.
 * The body's own team is the fallback (Bolt had none, e.g. an uninstall event).
 */
export function teamOfRequest(bolt: { teamId?: string }, ...fromBody: (string | null | undefined)[]): string {
  return bolt.teamId || fromBody.find((teamId): teamId is string => Boolean(teamId)) || '';
}
