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
