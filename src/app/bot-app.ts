import { randomUUID } from 'node:crypto';
import {
  App,
  type AppOptions,
  ErrorCode,
  LogLevel,
  type Receiver,
  type Logger as SlackLogger,
} from '@slack/bolt';
import type { Logger } from 'pino';
import { BotIdentityUnknownError, refusedTokenError } from './adapters/bot-token-authorize.ts';
import type { RespondAt } from './adapters/slack-fetch.ts';
import { tellPerson } from './adapters/tell-person.ts';
import type { InstallFlow } from './features/install/install-flow.ts';
import { registerListeners } from './register-listeners.ts';
import { UnreadableSecretError } from './security/key-cipher.ts';
import { describeFailure } from './shared/failure-sentences.ts';
import type { FeatureContext } from './shared/feature-context.ts';
import { failureMessage } from './shared/views/messages.ts';
import { type Mrkdwn, mrkdwn } from './shared/views/mrkdwn.ts';

/** What the Slack app is made of; every part is built by the composition root (src/cli/compose-bot.ts). */
export interface SlackAppParts {
  /**
   * Who the app is in each workspace: one workspace's token (src/app/adapters/bot-token-authorize.ts)
   * or the install flow's (many workspaces); never Bolt's `token` option, which crashed without Slack.
   */
  credentials: Required<Pick<AppOptions, 'authorize'>>;
  /** One workspace's bot token: a failure is told with it where the request brought none. */
  botToken?: string;
  /** HTTP mode's receiver, or an answer worker's; none: Socket Mode with `appToken`. */
  receiver?: Receiver;
  appToken?: string;
  clientOptions: AppOptions['clientOptions'];
  logger: Logger;
  context: FeatureContext;
  install: InstallFlow | null;
  /** Answers at a request's response_url (Bolt's own `respond` when not given). */
  respondAt?: RespondAt;
}

/**
 * The Slack app, thin on purpose: it creates Bolt's App, asks each feature to register its
 * listeners (src/app/register-listeners.ts), and turns whatever a listener fails with into a
 * sentence for the person who asked.
 */
export function createBotApp(parts: SlackAppParts): App {
  const { logger } = parts;
  const common = {
    ...parts.credentials,
    logger: toSlackLogger(logger),
    clientOptions: parts.clientOptions,
    extendedErrorHandler: true,
    // No listener keeps conversation state: Bolt's store would cost a middleware on every request.
    convoStore: false,
  } as const;
  const app = parts.receiver
    ? new App({ ...common, receiver: parts.receiver })
    : new App({ ...common, appToken: parts.appToken, socketMode: true });
  registerListeners(app, parts.context, parts.install, parts.respondAt);
  // With extendedErrorHandler, Bolt passes the request's body and context too (Bolt does not export that type).
  app.error((async ({ error, body, context: requestContext }: ErrorArgs) => {
    const reference = randomUUID().slice(0, 8);
    const causes = causesOf(error);
    const unreadable = causes.find((cause) => cause instanceof UnreadableSecretError);
    const identity = causes.find((cause) => cause instanceof BotIdentityUnknownError);
    if ((error as { code?: unknown }).code === ErrorCode.AuthorizationError && !unreadable && !identity) {
      // No installation for this workspace (uninstalled, or never installed): no token to answer with
      // but the response_url, which needs none.
      logger.warn({ reference, teamId: teamOf(body) }, 'a request came from a workspace without Tenderbot');
      await tellPerson(
        app.client,
        respondableOnly(body),
        failureMessage(NOT_INSTALLED, reference, null),
      ).catch(() => undefined);
      return;
    }
    // An installation this ENCRYPTION_KEY cannot read is the app's fault, not an uninstall: said as a failure.
    const original =
      unreadable ??
      // Slack's own answer to the bot's auth.test (out of reach, or the token refused).
      (identity as Error | undefined)?.cause ??
      (error as { original?: unknown }).original ??
      error;
    logger.error(
      { err: original, reference },
      identity ? 'Slack did not confirm the bot token' : 'unhandled error in a listener',
    );
    const sentence = identity ? botIdentitySentence(original) : describeFailure(original).sentence;
    await tellPerson(
      app.client,
      body as unknown,
      failureMessage(sentence, reference, null),
      requestContext?.botToken ?? parts.botToken,
    ).catch((tellError: unknown) =>
      logger.error({ err: tellError, reference }, 'could not tell the person about a failure'),
    );
  }) as unknown as Parameters<typeof app.error>[0]);
  return app;
}

/** What Bolt's extended error handler is given. */
interface ErrorArgs {
  error: Error;
  body?: unknown;
  context?: { botToken?: string };
}

/** Why Tenderbot could not act as itself: Slack refused its token, or did not answer. */
function botIdentitySentence(slackAnswer: unknown): Mrkdwn {
  return refusedTokenError(slackAnswer)
    ? mrkdwn`Slack refused Tenderbot’s token for this workspace, so Tenderbot cannot answer here. Tell whoever runs Tenderbot that its Slack token needs replacing (the log says which).`
    : mrkdwn`Slack did not answer Tenderbot just now, so it could not do what you asked. Try again in a minute.`;
}

const NOT_INSTALLED = mrkdwn`Tenderbot is not installed in this workspace any more. Someone who manages apps here can add it again.`;

export function teamOf(body: unknown): string | null {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const team = fields.team as { id?: unknown } | undefined;
  const id = fields.team_id ?? team?.id;
  return typeof id === 'string' ? id : null;
}

/** An error and what it wraps (Bolt's and the OAuth package's `original`, or `cause`), outermost first. */
function causesOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < 5) {
    chain.push(current);
    const wrapped = current as { original?: unknown; cause?: unknown };
    current = wrapped.original ?? wrapped.cause;
  }
  return chain;
}

/** Only the response_url of a body: without a token, a direct message cannot be sent. */
export function respondableOnly(body: unknown): unknown {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return { response_url: fields.response_url };
}

/** Bolt's logger interface over pino, so Bolt's own messages are JSON lines with the rest. */
function toSlackLogger(logger: Logger): SlackLogger {
  let level: LogLevel = LogLevel.INFO;
  const text = (messages: unknown[]) =>
    messages.map((message) => (typeof message === 'string' ? message : JSON.stringify(message))).join(' ');
  return {
    debug: (...messages) => logger.debug({ source: 'bolt' }, text(messages)),
    info: (...messages) => logger.info({ source: 'bolt' }, text(messages)),
    warn: (...messages) => logger.warn({ source: 'bolt' }, text(messages)),
    error: (...messages) => logger.error({ source: 'bolt' }, text(messages)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
