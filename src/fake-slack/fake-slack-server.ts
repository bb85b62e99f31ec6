import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyWithin, inviteBodiesWithin } from '../shared/request-body.ts';
import { limitSlowClients } from '../shared/slow-clients.ts';
import { FakeInstall, type FakeOAuthApp } from './install.ts';
import type { Limits } from './limits.ts';
import { respondAt } from './response-url.ts';
import { SocketMode } from './socket-mode.ts';
import type { ExtraRoute, RecordedCall } from './types.ts';
import { parseArgs, webApi } from './web-api.ts';
import type { Workspace } from './workspace.ts';

/** The most a request to the fake Slack may carry (a modal or a message of Slack's largest, many times over). */
const FAKE_SLACK_BODY_LIMIT = 8 * 1024 * 1024;

/** Whether a Web API call's token opens its workspace, and if not, what Slack answers. */
type Authorisation = 'ok' | 'token_revoked' | 'invalid_auth';

function answerJson(outgoing: ServerResponse, status: number, body: unknown): void {
  outgoing.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  outgoing.end(JSON.stringify(body));
}

/**
 * One workspace's door to the Web API: a call is recorded with its token, then refused by a
 * limit, by its token or by an arranged fault (limits.ts), or carried out (web-api.ts), its
 * answer sent, lost or held as the fault says.
 */
export class WebApiGate {
  /** How many HTTP 429s this workspace has answered (any limit, or an arranged fault). */
  rateLimited = 0;
  private readonly held = new Set<() => void>();

  constructor(
    readonly workspace: Workspace,
    readonly limits: Limits,
  ) {}

  /** A Web API call in this workspace: recorded with its token, then limited, faulted or carried out. */
  async answerCall(
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    method: string,
    args: Record<string, unknown>,
    token: string,
    authorisation: Authorisation,
  ): Promise<void> {
    const answer = (status: number, body: unknown) => answerJson(outgoing, status, body);
    const call: RecordedCall = { method, args, token };
    this.workspace.calls.push(call);
    if (this.limits.overRate()) {
      this.tooMany(outgoing, 1);
      return;
    }
    if (authorisation !== 'ok') {
      answer(200, { ok: false, error: authorisation });
      return;
    }
    const fault = this.limits.takeFault(method, args);
    if (fault?.kind === 'ratelimit') {
      this.tooMany(outgoing, fault.retryAfterSeconds ?? 1);
      return;
    }
    if (fault?.kind === 'error') {
      answer(200, { ok: false, error: fault.error });
      return;
    }
    const wait =
      method === 'chat.postMessage' ? this.limits.channelWait(args) : this.limits.historyWait(method);
    if (wait !== null) {
      this.tooMany(outgoing, wait);
      return;
    }
    const result = webApi(this.workspace, method, args);
    if (result.ok === false) call.error = String(result.error);
    if (method === 'chat.postMessage' && result.ok) this.limits.recordPost(String(result.channel));
    if (fault?.kind === 'drop-answer') {
      // Carried out, but the answer is lost: the caller sees its connection cut.
      incoming.socket.destroy();
      return;
    }
    if (fault?.kind === 'hold') {
      const release = () => answer(200, result);
      this.held.add(release);
      outgoing.on('close', () => this.held.delete(release));
      return;
    }
    answer(200, result);
  }

  /** Sends every answer held by a `hold` fault; how many were sent. */
  releaseHeld(): number {
    const held = [...this.held];
    this.held.clear();
    for (const release of held) release();
    return held.length;
  }

  /** Answers held by a `hold` fault and not yet sent. */
  get heldCount(): number {
    return this.held.size;
  }

  /** Slack's 429: `Retry-After` in whole seconds (at least 1) and `ratelimited`. */
  private tooMany(outgoing: ServerResponse, seconds: number): void {
    this.rateLimited++;
    outgoing.writeHead(429, {
      'content-type': 'application/json; charset=utf-8',
      'retry-after': String(Math.max(1, Math.ceil(seconds))),
    });
    outgoing.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
  }
}

/**
 * What the workspaces of one fake Slack share: one HTTP server, the app's address, the extra
 * routes and the install flow. It routes each request: response_url posts to the workspace that
 * gave the URL, the install page and `oauth.v2.access` to the install flow, Socket Mode's
 * `apps.connections.open` to its connections, and Web API calls to the gate of the workspace
 * their token acts in. `Team` is what each workspace is to its owner (a `FakeSlack`).
 */
export class FakeSlackServer<Team> {
  /** Every workspace served, the first one first. */
  readonly teams: Team[] = [];
  /** Each workspace's gate, in the order of `teams`. */
  private readonly gates: WebApiGate[] = [];
  appUrl: string | null = null;
  baseUrl = '';
  readonly extraRoutes: ExtraRoute[] = [];
  private httpServer: Server | null = null;
  readonly install: FakeInstall;
  /** Socket Mode: the app's connections, opened with its app-level token. */
  readonly socketMode: SocketMode;

  constructor(oauth: FakeOAuthApp | undefined, now: () => number, appToken: string | null) {
    this.install = new FakeInstall(oauth, () => this.gates.map((gate) => gate.workspace), now);
    this.socketMode = new SocketMode(appToken);
  }

  /** Serves one more workspace. */
  join(team: Team, gate: WebApiGate): void {
    this.teams.push(team);
    this.gates.push(gate);
    gate.workspace.baseUrl = this.baseUrl;
  }

  /**
   * The workspace a token acts in. An organisation-wide token acts in each of its workspaces: the
   * call's team_id, channel or user says which, else the first.
   */
  private gateFor(token: string, args: Record<string, unknown>): WebApiGate | null {
    const holders = this.gates.filter((gate) => gate.workspace.tokens.has(token));
    if (holders.length <= 1) return holders[0] ?? null;
    return (
      holders.find((gate) => gate.workspace.teamId === args.team_id) ??
      holders.find((gate) => typeof args.channel === 'string' && gate.workspace.hasChannel(args.channel)) ??
      holders.find((gate) => gate.workspace.users.some((user) => user.id === args.user)) ??
      holders[0] ??
      null
    );
  }

  private isRevoked(token: string): boolean {
    return this.gates.some((gate) => gate.workspace.revokedTokens.has(token));
  }

  /**
   * Serves every workspace on one port. `home` is the workspace that started it: it answers
   * response_urls of no known workspace and records the calls no workspace's token opens.
   */
  async start(port: number, host: string, home: WebApiGate): Promise<void> {
    const server = createServer((incoming, outgoing) => {
      this.handle(incoming, outgoing, home).catch((error) => {
        outgoing.writeHead(500, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ ok: false, error: 'fake_slack_failure', detail: String(error) }));
      });
    });
    server.on('upgrade', (incoming, socket, head) => this.socketMode.upgrade(incoming, socket, head));
    // The workbench's page and Web API face a browser: a request trickling in is cut off.
    limitSlowClients(server);
    inviteBodiesWithin(server, FAKE_SLACK_BODY_LIMIT);
    this.httpServer = server;
    await new Promise<void>((ready) => server.listen(port, host, ready));
    const address = server.address() as AddressInfo;
    this.baseUrl = `http://${host}:${address.port}`;
    for (const gate of this.gates) gate.workspace.baseUrl = this.baseUrl;
  }

  async stop(): Promise<void> {
    const server = this.httpServer;
    if (!server) return;
    this.socketMode.close();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    this.httpServer = null;
  }

  // HTTP: the Web API, response_url endpoints, and extra routes.

  private async handle(incoming: IncomingMessage, outgoing: ServerResponse, home: WebApiGate): Promise<void> {
    // Read whole before decoding: a character split across two chunks stays one character.
    const bytes = await bodyWithin(incoming, FAKE_SLACK_BODY_LIMIT);
    if (bytes === null) {
      answerJson(outgoing, 413, { ok: false, error: 'request_too_large' });
      return;
    }
    const raw = bytes.toString('utf8');
    const url = new URL(incoming.url ?? '/', this.baseUrl || 'http://127.0.0.1');
    const answer = (status: number, body: unknown) => answerJson(outgoing, status, body);
    if (url.pathname.startsWith('/response/')) {
      const id = url.pathname.slice('/response/'.length);
      // The id ends with the team it belongs to (Workspace.newResponseUrl); older ones mean the first.
      const teamId = Buffer.from(id, 'base64url').toString('utf8').split('|')[4];
      const gate = this.gates.find((candidate) => candidate.workspace.teamId === teamId) ?? home;
      let body: unknown;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        answer(400, { ok: false, error: 'invalid_payload' });
        return;
      }
      const responded = respondAt(gate.workspace, id, body);
      answer(responded.status, responded.body);
      return;
    }
    if (url.pathname === '/oauth/v2/authorize') {
      const page =
        incoming.method === 'POST'
          ? this.install.decide(new URLSearchParams(raw))
          : this.install.authorizePage(url.searchParams);
      outgoing.writeHead(page.status, {
        'content-type': page.contentType,
        'cache-control': 'no-store',
        ...(page.location ? { location: page.location } : {}),
      });
      outgoing.end(page.body);
      return;
    }
    if (!url.pathname.startsWith('/api/')) {
      for (const route of this.extraRoutes) {
        const routed = await route({
          method: incoming.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: incoming.headers,
          body: raw,
        });
        if (routed) {
          outgoing.writeHead(routed.status, {
            'content-type': routed.contentType,
            'cache-control': 'no-store',
          });
          outgoing.end(routed.body);
          return;
        }
      }
      answer(404, { ok: false, error: 'unknown_path' });
      return;
    }
    const method = url.pathname.slice('/api/'.length);
    let args: Record<string, unknown>;
    try {
      args = parseArgs(raw, incoming.headers['content-type'] ?? '');
    } catch {
      answer(200, { ok: false, error: 'invalid_json' });
      return;
    }
    if (method === 'apps.connections.open') {
      // The app-level token, not a workspace's: the app opens a Socket Mode connection.
      const appToken = /^Bearer (.+)$/.exec(incoming.headers.authorization ?? '')?.[1] ?? '';
      home.workspace.calls.push({ method, args: {} });
      answer(200, this.socketMode.open(appToken, this.baseUrl));
      return;
    }
    if (method === 'oauth.v2.access') {
      // No bot token yet: the app's own credentials and the code say who asks.
      const { client_secret: _secret, ...shown } = args;
      home.workspace.calls.push({ method, args: shown });
      answer(200, this.install.exchange(args, incoming.headers.authorization));
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(incoming.headers.authorization ?? '')?.[1];
    const token = bearer ?? (typeof args.token === 'string' ? args.token : '');
    const gate = this.gateFor(token, args);
    if (method === 'auth.teams.list' && gate) {
      // The workspaces an organisation-wide token acts in (one for a workspace's own token).
      gate.workspace.calls.push({ method, args, token });
      const holders = this.gates.filter((candidate) => candidate.workspace.tokens.has(token));
      answer(200, {
        ok: true,
        teams: holders.map((candidate) => ({
          id: candidate.workspace.teamId,
          name: candidate.workspace.teamName,
        })),
        response_metadata: { next_cursor: '' },
      });
      return;
    }
    // A call no workspace's token opens is recorded in the starting workspace (the first, as a rule).
    const authorisation: Authorisation = gate
      ? 'ok'
      : this.isRevoked(token)
        ? 'token_revoked'
        : 'invalid_auth';
    await (gate ?? home).answerCall(incoming, outgoing, method, args, token, authorisation);
  }
}
