import type { FakeSlackOptions, Fault, FaultMatch } from './types.ts';
import type { Workspace } from './workspace.ts';

/** The methods Slack limits for commercially distributed apps outside the Marketplace (changelog 2025-05-29). */
const HISTORY_METHODS = new Set(['conversations.history', 'conversations.replies']);
/** About one call a minute, per method, workspace and app (Slack's rate limits are counted so). */
const UNLISTED_HISTORY_INTERVAL_MS = 60_000;

/**
 * Why a Web API call may be refused or mistreated before or after it is carried out: the
 * workspace-wide rate (`rateLimitPerSecond`), Slack's per-channel posting limit
 * (`postsPerSecondPerChannel`), the history limit of an app outside the Marketplace, and the
 * faults a test arranged (`failNext`). Windows follow the workspace's clock.
 */
export class Limits {
  private rateWindow = { start: 0, count: 0 };
  /** When each history method was last served in this workspace (clock ms). */
  private readonly historyServedAt = new Map<string, number>();
  /** When each channel's recent posts were accepted (clock ms), for the per-channel limit. */
  private readonly postTimes = new Map<string, number[]>();
  private readonly faults: { method: string; fault: Fault; match: FaultMatch; left: number }[] = [];

  constructor(
    private readonly workspace: Workspace,
    private readonly options: FakeSlackOptions,
  ) {}

  arrange(method: string, fault: Fault, match: FaultMatch): void {
    this.faults.push({ method, fault, match, left: Math.max(1, fault.times ?? 1) });
  }

  /** The first arranged fault for this call, used up once. */
  takeFault(method: string, args: Record<string, unknown>): Fault | null {
    // A call about a person (users.info) is matched by its user, as one about a channel by its channel.
    const about = args.channel ?? args.user;
    const channel = typeof about === 'string' ? about : '';
    const index = this.faults.findIndex(
      (candidate) =>
        candidate.method === method &&
        (!candidate.match.channel ||
          candidate.match.channel === channel ||
          this.workspace.resolveChannel(candidate.match.channel) === this.workspace.resolveChannel(channel)),
    );
    const found = this.faults[index];
    if (!found) return null;
    found.left--;
    if (found.left <= 0) this.faults.splice(index, 1);
    return found.fault;
  }

  /** Seconds until a channel may take another post under the per-channel limit, or null if now. */
  channelWait(args: Record<string, unknown>): number | null {
    const limit = this.options.postsPerSecondPerChannel;
    if (!limit || typeof args.channel !== 'string') return null;
    const now = this.workspace.now();
    const recent = (this.postTimes.get(this.workspace.resolveChannel(args.channel)) ?? []).filter(
      (time) => time > now - 1000,
    );
    if (recent.length < limit) return null;
    return Math.max(1, Math.ceil(((recent[0] ?? now) + 1000 - now) / 1000));
  }

  recordPost(channel: string): void {
    if (!this.options.postsPerSecondPerChannel) return;
    const now = this.workspace.now();
    const recent = (this.postTimes.get(channel) ?? []).filter((time) => time > now - 1000);
    this.postTimes.set(channel, [...recent, now]);
  }

  /**
   * Seconds until `conversations.history` (or `.replies`) may be called again in this workspace,
   * or null if now (the call is then counted). Slack serves an app outside the Marketplace about
   * one call a minute per method and workspace, whatever the channel or cursor; refused calls do
   * not move the window. A Marketplace app (`marketplaceApp`) is not held to it.
   */
  historyWait(method: string): number | null {
    if (!HISTORY_METHODS.has(method) || this.options.marketplaceApp) return null;
    const now = this.workspace.now();
    const last = this.historyServedAt.get(method);
    if (last !== undefined && now - last < UNLISTED_HISTORY_INTERVAL_MS)
      return (last + UNLISTED_HISTORY_INTERVAL_MS - now) / 1000;
    this.historyServedAt.set(method, now);
    return null;
  }

  overRate(): boolean {
    const limit = this.options.rateLimitPerSecond;
    if (!limit) return false;
    const second = Math.floor(this.workspace.now() / 1000);
    if (this.rateWindow.start !== second) this.rateWindow = { start: second, count: 0 };
    this.rateWindow.count++;
    return this.rateWindow.count > limit;
  }
}
