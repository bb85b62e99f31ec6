import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthorizeResult, AuthorizeSourceData } from '@slack/bolt';
import { type CodedError, ErrorCode, type Installation, InstallProvider, type Logger } from '@slack/oauth';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Logger as PinoLogger } from 'pino';
import type { KeyCipher } from '../../security/key-cipher.ts';
import type { BotStore } from '../../storage/bot-store.ts';
import { addToSlackPage, installedPage, refusedPage } from './install-pages.ts';
import { EncryptedInstallationStore } from './installation-store.ts';
import { INSTALL_SCOPES } from './scopes.ts';
import { SingleUseStateStore } from './state-store.ts';

export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';

export interface InstallFlowOptions {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** SLACK_REDIRECT_URI; when null Slack uses the first redirect URL of the app's settings. */
  redirectUri: string | null;
  /** The Web API base (SLACK_API_URL): Slack's install page is beside it, at /oauth/v2/authorize. */
  slackApiUrl: string;
  store: Pick<
    BotStore,
    'saveInstallation' | 'findInstallation' | 'deleteInstallation' | 'listInstallations' | 'rememberRequest'
  >;
  cipher: KeyCipher;
  logger: PinoLogger;
  clientOptions?: Omit<WebClientOptions, 'logLevel' | 'logger'>;
  clock?: () => Date;
}

/**
 * "Add to Slack" with Bolt's own InstallProvider: GET /slack/install (a page with the button),
 * GET /slack/oauth_redirect (the state checked, used once; the code traded for the workspace's bot
 * token; the installation stored encrypted), and `authorize`, which finds the token of the
 * workspace (or organisation) of each request in the bot's store.
 */
export class InstallFlow {
  readonly installations: EncryptedInstallationStore;
  private readonly provider: InstallProvider;
  /** team id -> enterprise id ('' for none), for org-wide installs; bounded, and short-lived. */
  private readonly enterpriseOfTeam = new LRUCache<string, string>({ max: 10_000, ttl: 10 * 60_000 });

  constructor(private readonly options: InstallFlowOptions) {
    this.installations = new EncryptedInstallationStore(options.store, options.cipher, options.clock);
    this.provider = new InstallProvider({
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      stateStore: new SingleUseStateStore(options.stateSecret, options.store),
      installationStore: this.installations,
      authorizationUrl: new URL('../oauth/v2/authorize', withSlash(options.slackApiUrl)).toString(),
      renderHtmlForInstallPath: addToSlackPage,
      installUrlOptions: {
        scopes: [...INSTALL_SCOPES],
        ...(options.redirectUri ? { redirectUri: options.redirectUri } : {}),
      },
      // Only warnings and errors: the provider's debug lines name the state and the client id.
      logger: quietLogger(options.logger),
      clientOptions: options.clientOptions ?? {},
    });
    this.authorize = this.authorize.bind(this);
  }

  /** Bolt's `authorize`: the bot token of the request's workspace, or of its organisation's org-wide install. */
  async authorize(source: AuthorizeSourceData<boolean>): Promise<AuthorizeResult> {
    return (await this.provider.authorize({
      teamId: source.teamId,
      enterpriseId: source.enterpriseId,
      userId: source.userId,
      conversationId: source.conversationId,
      isEnterpriseInstall: source.isEnterpriseInstall,
    })) as AuthorizeResult;
  }

  /**
   * The bot token for a workspace's work outside a request (scheduled posts), read from the store
   * each time: the workspace's own install, else its organisation's org-wide one.
   */
  async botTokenFor(teamId: string): Promise<string | null> {
    const own = await this.installations.find({
      teamId,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    if (own?.bot?.token) return own.bot.token;
    const enterpriseId = await this.enterpriseOf(teamId);
    if (!enterpriseId) return null;
    const org = await this.installations.find({ teamId, enterpriseId, isEnterpriseInstall: true });
    return org?.bot?.token ?? null;
  }

  /**
   * The workspaces an organisation's org-wide install covers, as far as this app knows: those
   * Slack listed at install time or granted since (kept with the installation), and those seen
   * here since. Read before the installation is removed, so that theirs can be removed too.
   */
  async coveredTeams(enterpriseId: string): Promise<string[]> {
    const found = await this.installations.find({
      enterpriseId,
      teamId: undefined,
      isEnterpriseInstall: true,
    });
    const teams = new Set(found?.coveredTeamIds ?? []);
    for (const [teamId, enterprise] of this.enterpriseOfTeam.entries())
      if (enterprise === enterpriseId) teams.add(teamId);
    return [...teams];
  }

  /**
   * Records that an org-wide install now covers (`add`) or no longer covers (`remove`) some
   * workspaces (team_access_granted / team_access_revoked); nothing when there is no such install.
   * A removed workspace is recorded as revoked: the install no longer answers for it until granted.
   */
  async recordCoverage(enterpriseId: string, change: { add?: string[]; remove?: string[] }): Promise<void> {
    for (const teamId of change.add ?? []) this.enterpriseOfTeam.set(teamId, enterpriseId);
    for (const teamId of change.remove ?? []) this.enterpriseOfTeam.delete(teamId);
    const found = await this.installations.findWithDate({
      enterpriseId,
      teamId: undefined,
      isEnterpriseInstall: true,
    });
    if (!found?.installation.isEnterpriseInstall) return;
    const teams = new Set(found.installation.coveredTeamIds ?? []);
    const revoked = new Set(found.installation.revokedTeamIds ?? []);
    for (const teamId of change.add ?? []) {
      teams.add(teamId);
      revoked.delete(teamId);
    }
    for (const teamId of change.remove ?? []) {
      teams.delete(teamId);
      revoked.add(teamId);
    }
    await this.installations.update(
      { ...found.installation, coveredTeamIds: [...teams].sort(), revokedTeamIds: [...revoked].sort() },
      found.installedAt,
    );
  }

  /** The workspaces an org-wide bot token acts in, as Slack lists them. */
  /**
   * Slack's link into the workspace just installed, opening Tenderbot there
   * (`https://slack.com/app_redirect?app=…&team=…`, beside the Web API's address).
   */
  private openSlackUrl(installation: Installation): string {
    const url = new URL('../app_redirect', withSlash(this.options.slackApiUrl));
    if (installation.appId) url.searchParams.set('app', installation.appId);
    if (installation.team?.id) url.searchParams.set('team', installation.team.id);
    return url.toString();
  }

  private async teamsOfToken(token: string): Promise<string[]> {
    const client = new WebClient(token, this.options.clientOptions ?? {});
    const teams: string[] = [];
    for await (const page of client.paginate('auth.teams.list', { limit: 200 }))
      for (const team of (page as { teams?: { id?: string }[] }).teams ?? [])
        if (team.id) teams.push(team.id);
    return teams;
  }

  /**
   * The organisation a workspace is part of, among the org-wide installs: Slack lists each
   * install's workspaces (auth.teams.list). Which workspace is in which organisation is kept a
   * while (it is no secret and rarely changes); the tokens themselves never are.
   */
  private async enterpriseOf(teamId: string): Promise<string | null> {
    const known = this.enterpriseOfTeam.get(teamId);
    if (known !== undefined) return known || null;
    for (const stored of await this.options.store.listInstallations()) {
      if (!stored.isEnterpriseInstall || !stored.enterpriseId) continue;
      const installation = await this.installations.find({
        enterpriseId: stored.enterpriseId,
        teamId: undefined,
        isEnterpriseInstall: true,
      });
      const token = installation?.bot?.token;
      if (!token) continue;
      for (const teamId of await this.teamsOfToken(token))
        this.enterpriseOfTeam.set(teamId, stored.enterpriseId);
    }
    const found = this.enterpriseOfTeam.get(teamId);
    // A workspace in no organisation is remembered as such for a short while too.
    if (found === undefined) this.enterpriseOfTeam.set(teamId, '', { ttl: 60_000 });
    return found ?? null;
  }

  /** Said once in the log at start: installations this ENCRYPTION_KEY cannot read (those workspaces get no answer). */
  async reportUnreadable(logger: PinoLogger): Promise<void> {
    for (const stored of await this.options.store.listInstallations()) {
      try {
        this.options.cipher.decrypt(stored.encryptedInstallation);
      } catch {
        logger.error(
          { teamId: stored.teamId, enterpriseId: stored.enterpriseId },
          'the stored installation of this workspace cannot be decrypted (ENCRYPTION_KEY changed? set ENCRYPTION_KEY_PREVIOUS): it must be installed again',
        );
      }
    }
  }

  /** Answers the install paths; false for any other request. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || (path !== INSTALL_PATH && path !== REDIRECT_PATH)) return false;
    if (path === INSTALL_PATH) {
      await this.provider.handleInstallPath(request, response);
      return true;
    }
    await this.provider.handleCallback(request, response, {
      successAsync: async (installation, _options, _request, answer) => {
        // An org-wide install: which workspaces it covers is kept with it (its removal removes theirs).
        const enterpriseId = installation.enterprise?.id;
        const token = installation.bot?.token;
        if (installation.isEnterpriseInstall && enterpriseId && token) {
          const covered = await this.teamsOfToken(token).catch((error: unknown) => {
            this.options.logger.warn(
              { reason: (error as Error).message },
              'could not list the organisation’s workspaces',
            );
            return [];
          });
          await this.recordCoverage(enterpriseId, { add: covered });
        }
        this.options.logger.info(
          {
            teamId: installation.team?.id ?? null,
            enterpriseId: installation.enterprise?.id ?? null,
            orgWide: installation.isEnterpriseInstall === true,
          },
          'Tenderbot was installed',
        );
        send(answer, 200, installedPage(placeName(installation), this.openSlackUrl(installation)));
      },
      failureAsync: async (error, _options, _request, answer) => {
        this.options.logger.warn({ code: error.code, reason: error.message }, 'an install did not finish');
        send(answer, error.message.includes('cancelled') ? 200 : 400, refusedPage(reasonOf(error)));
      },
    });
    return true;
  }
}

/** What a person is told when an install does not finish (never the error's own text). */
function reasonOf(error: CodedError): string {
  if (error.message.includes('cancelled')) return 'You cancelled, so nothing was installed.';
  switch (error.code) {
    case ErrorCode.InvalidStateError:
    case ErrorCode.MissingStateError:
      return 'This install link has expired, was used already, or was not started here. Nothing was installed.';
    case ErrorCode.MissingCodeError:
      return 'Slack did not send back the install’s code. Nothing was installed.';
    default:
      return 'Slack did not accept this install (its code may have been used already). Nothing was installed.';
  }
}

function placeName(installation: Installation<'v1' | 'v2', boolean>): string {
  if (installation.isEnterpriseInstall)
    return `every workspace of ${installation.enterprise?.name ?? 'your organisation'}`;
  return installation.team?.name ?? 'your workspace';
}

function send(response: ServerResponse, status: number, html: string): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  response.end(html);
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

function quietLogger(logger: PinoLogger): Logger {
  let level = 'info';
  const text = (messages: unknown[]) =>
    messages.map((message) => (typeof message === 'string' ? message : String(message))).join(' ');
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (...messages) => logger.warn({ source: 'oauth' }, text(messages)),
    error: (...messages) => logger.error({ source: 'oauth' }, text(messages)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level as ReturnType<Logger['getLevel']>,
    setName: () => undefined,
  };
}
