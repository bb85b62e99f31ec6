import {
  type AppAnswer,
  type Blocks,
  type FakeChannel,
  type FakeMessage,
  type FakeSlackOptions,
  type FakeUser,
  type FakeView,
  type RecordedCall,
  SLACKBOT_USER_ID,
} from './types.ts';
import { Workspace, type WorkspaceIdentity } from './workspace.ts';

/**
 * One workspace of the fake Slack as the tests and the workbench read and arrange it: its people,
 * channels, messages, views and recorded calls, with no server and no app. `FakeSlack` (fake-slack.ts)
 * is this plus serving HTTP (fake-slack-server.ts) and sending to the app (app-sender.ts); the
 * state itself is a `Workspace` (workspace.ts).
 */
export abstract class FakeSlackState {
  protected readonly workspace: Workspace;

  constructor(protected readonly options: FakeSlackOptions & WorkspaceIdentity) {
    this.workspace = new Workspace(options);
  }

  /** Internal: the workspace's state, for the shared part. */
  get workspaceState(): Workspace {
    return this.workspace;
  }

  /** The app's signing secret, which every workspace's requests to the app are signed with. */
  get signingSecret(): string {
    return this.options.signingSecret;
  }

  get teamName(): string {
    return this.workspace.teamName;
  }

  /** The Enterprise Grid organisation of this workspace, or null. */
  get enterprise(): { id: string; name: string } | null {
    return this.workspace.enterprise;
  }

  /** The bot tokens that work in this workspace now (installs add one each; an uninstall takes them all). */
  get botTokens(): string[] {
    return [...this.workspace.tokens];
  }

  /** Whether the app is installed for this workspace's whole organisation. */
  get orgWideInstall(): boolean {
    return this.workspace.orgWideInstall;
  }

  get calls(): RecordedCall[] {
    return this.workspace.calls;
  }
  get messages(): FakeMessage[] {
    return this.workspace.messages;
  }
  get views(): Map<string, FakeView> {
    return this.workspace.views;
  }
  get users(): FakeUser[] {
    return this.workspace.users;
  }
  get channels(): readonly FakeChannel[] {
    return this.workspace.channels;
  }
  get teamId(): string {
    return this.workspace.teamId;
  }

  /** The workspace clock's current instant (epoch ms): `options.clock`, or real time. */
  now(): number {
    return this.workspace.now();
  }

  /** The per-channel posting limit (`postsPerSecondPerChannel`); 0 or undefined turns it off. */
  get postsPerSecondPerChannel(): number | undefined {
    return this.options.postsPerSecondPerChannel;
  }
  set postsPerSecondPerChannel(limit: number | undefined) {
    this.options.postsPerSecondPerChannel = limit;
  }

  /** The app's unfurl domains (`unfurlDomains`): links to these send `link_shared`. */
  get unfurlDomains(): string[] {
    return this.options.unfurlDomains ?? [];
  }
  set unfurlDomains(domains: string[]) {
    this.options.unfurlDomains = domains;
  }

  // The workspace, as the tests and the workbench read it.

  /**
   * What this workspace's Slack refused, oldest first: Web API calls answered `ok: false` (with
   * `error`) and response_url posts refused (`response_url.refused`), for a test to read or
   * expect none.
   */
  get refusals(): RecordedCall[] {
    return this.workspace.calls.filter(
      (call) => call.error !== undefined || call.method === 'response_url.refused',
    );
  }

  /** Calls of one Web API method, oldest first. */
  callsOf(method: string): RecordedCall[] {
    return this.workspace.calls.filter((call) => call.method === method);
  }

  /** Messages a user can see in a channel: everyone's, and the ephemeral ones shown to them. */
  messagesIn(channel: string, userId?: string): FakeMessage[] {
    return this.workspace.messagesIn(channel, userId);
  }

  /**
   * The answer to a command (or click) as the person sees it in the channel: the first message
   * after the first `before` that was posted through its response_url or through none. One posted
   * through another request's response_url (a late answer to an earlier click) is never taken for
   * it; a late Web API post (chat.postEphemeral) still can be, as nothing ties it to a request.
   */
  answerTo(answer: AppAnswer, channel: string, userId: string, before: number): FakeMessage | undefined {
    // A reply in a thread (a line under a card another click redrew, late) answers no command.
    return this.messagesIn(channel, userId)
      .slice(before)
      .find(
        (message) =>
          !message.threadTs &&
          (message.postedThrough === undefined || message.postedThrough === answer.responseUrl),
      );
  }

  lastMessage(channel: string, userId?: string): FakeMessage | undefined {
    return this.messagesIn(channel, userId).at(-1);
  }

  /** The replies under a message, oldest first. */
  threadOf(channel: string, threadTs: string): FakeMessage[] {
    return this.workspace.threadOf(channel, threadTs);
  }

  homeOf(userId: string): FakeView | undefined {
    return this.workspace.homeOf(userId);
  }

  openModals(userId: string): FakeView[] {
    return this.workspace.openModals(userId);
  }

  user(id: string): FakeUser {
    return this.workspace.user(id);
  }

  /**
   * A new response_url for a person in a channel, as Slack gives one with each command (for a test
   * that builds a command's body itself): usable 5 times within 30 minutes, like any other.
   */
  newResponseUrl(channel: string, userId: string): string {
    this.workspace.user(userId);
    return this.workspace.newResponseUrl(channel, userId);
  }

  /** The id of a person's direct messages with the app (`D` + user id), as `chat.postMessage` to a user id answers. */
  dmOf(userId: string): string {
    this.workspace.user(userId);
    return `D${userId}`;
  }

  // Channel access a test arranges (adding or removing the app tells the app: fake-slack.ts).

  /** Archives a channel: posting in it then answers `is_archived`; its history still reads. */
  archiveChannel(channel: string): void {
    if (!this.workspace.channels.some((candidate) => candidate.id === channel))
      throw new Error(`no fake channel ${channel}`);
    this.workspace.archived.add(channel);
  }

  unarchiveChannel(channel: string): void {
    this.workspace.archived.delete(channel);
  }

  isArchived(channel: string): boolean {
    return this.workspace.archived.has(channel);
  }

  /** Whether a person is in a channel (everyone is, until `removeMember`). */
  isMember(channel: string, userId: string): boolean {
    return this.workspace.membersOf(channel).has(userId);
  }

  /** A person leaves a channel: an ephemeral message to them there is then `user_not_in_channel`. */
  removeMember(channel: string, userId: string): void {
    this.workspace.user(userId);
    this.workspace.membersOf(channel).delete(userId);
  }

  /** A person joins a channel again. */
  addMember(channel: string, userId: string): void {
    this.workspace.user(userId);
    this.workspace.membersOf(channel).add(userId);
  }

  /** Whether the app's bot user is in a channel (every channel is, until `removeApp`). */
  isAppIn(channel: string): boolean {
    return this.workspace.isMember(channel);
  }

  // Messages placed in the workspace without the app hearing of them.

  /**
   * A message from the app that only `userId` sees, with whatever blocks a test gives (an older
   * card, or a forged button value), so that a click on it can be tried.
   */
  postEphemeralAsApp(userId: string, channel: string, text: string, blocks: Blocks): FakeMessage {
    return this.workspace.postMessage(channel, text, blocks, userId, null);
  }

  /**
   * What Slack itself says to one person in a channel (as Slackbot, only visible to them): the
   * refusal of a command no app has, or a command's failure. The app never hears of it.
   */
  postAsSlackbot(userId: string, channel: string, text: string): FakeMessage {
    this.workspace.user(userId);
    const message = this.workspace.postMessage(channel, text, [], userId, null);
    message.authorId = SLACKBOT_USER_ID;
    return message;
  }

  /**
   * A message from the app that Slack makes of its answer to a command (the HTTP response body):
   * for `userId` alone, or for everyone when `ephemeralTo` is null.
   */
  postAsApp(channel: string, text: string, blocks: Blocks, ephemeralTo: string | null): FakeMessage {
    return this.workspace.postMessage(channel, text, blocks, ephemeralTo, null);
  }
}
