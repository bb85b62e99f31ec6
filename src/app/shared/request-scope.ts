import { AsyncLocalStorage } from 'node:async_hooks';
import type { App } from '@slack/bolt';

/** The workspace a request came from and the bot token Bolt found for it. */
export interface RequestScope {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  botToken: string | undefined;
}

const scope = new AsyncLocalStorage<RequestScope>();

/**
 * Runs every listener inside the scope of its request, so that helpers the features share (the
 * cache of people's roles) call Slack with that workspace's token without each caller passing it.
 */
export function useRequestScope(app: App): void {
  app.use(async ({ context, next }) =>
    scope.run(
      { teamId: context.teamId, enterpriseId: context.enterpriseId, botToken: context.botToken },
      next,
    ),
  );
}

/** The current request's workspace and token, or undefined outside a request. */
export function currentRequest(): RequestScope | undefined {
  return scope.getStore();
}

/**
 * The workspace a request is for, as Bolt decided it when it picked the token (`context.teamId`:
 * for a modal opened through a shared channel that is the installing workspace, not the
 * person's), so that the keys and settings used are those of the workspace whose token answers.
 * The body's own team is the fallback (Bolt had none, e.g. an uninstall event).
 */
export function teamOfRequest(bolt: { teamId?: string }, ...fromBody: (string | null | undefined)[]): string {
  return bolt.teamId || fromBody.find((teamId): teamId is string => Boolean(teamId)) || '';
}
