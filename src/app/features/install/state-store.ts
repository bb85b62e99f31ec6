import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type InstallURLOptions, InvalidStateError, type StateStore } from '@slack/oauth';
import type { BotStore } from '../../storage/bot-store.ts';

/** How long a person has between "Add to Slack" and Allow (Bolt's default too). */
export const STATE_LIFETIME_MS = 10 * 60 * 1000;

/**
 * The install's `state`: what the install page asked for, when, and a random part, signed with
 * SLACK_STATE_SECRET. Unlike Bolt's default it is good for one use: the first redirect that
 * brings it back is remembered in the bot's store (shared by every copy), and a second is refused.
 */
export class SingleUseStateStore implements StateStore {
  constructor(
    private readonly secret: string,
    private readonly store: Pick<BotStore, 'rememberRequest'>,
  ) {}

  async generateStateParam(installOptions: InstallURLOptions, now: Date): Promise<string> {
    const payload = Buffer.from(
      JSON.stringify({ options: installOptions, at: now.getTime(), nonce: randomBytes(12).toString('hex') }),
    ).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  async verifyStateParam(now: Date, state: string): Promise<InstallURLOptions> {
    const [payload = '', signature = ''] = state.split('.');
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new InvalidStateError('The state was not made by this app');
    let decoded: { options: InstallURLOptions; at: number };
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidStateError('The state cannot be read');
    }
    if (!(now.getTime() - decoded.at <= STATE_LIFETIME_MS && decoded.at <= now.getTime() + 60_000))
      throw new InvalidStateError('The state has expired');
    const fresh = await this.store.rememberRequest(
      `oauth-state:${signature}`,
      new Date(decoded.at + STATE_LIFETIME_MS + 60_000),
      now,
    );
    if (!fresh) throw new InvalidStateError('The state was used already');
    return decoded.options;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }
}
