import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type Instance } from '../subscriptions/harness.ts';

/** What a person reads of a message: its fallback text and its blocks. */
const said = (message: { text?: string; blocks?: unknown }) =>
  `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`;

const harness = new Harness(
  '2027-05-03T08:00:00Z',
  mkdtempSync(join(tmpdir(), 'tenderbot-subscribe-input-')),
);
let a: Instance;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
});
afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

const channelSubscriptions = (channel: string) => a.store.channelSubscriptions(harness.slack.teamId, channel);

describe('/tender subscribe with a time it cannot read', () => {
  it('says so, and suggests the 24-hour form, instead of searching for the time as a word', async () => {
    for (const [text, suggestion] of [
      ['search cleaning daily 25:00', 'for example `09:00`'],
      ['search cleaning 9am', '`09:00`'],
      ['search cleaning daily 5:30pm', '`17:30`'],
      ['pipeline pl-bob weekly 25:00', 'for example `09:00`'],
      ['search cleaning 9.30', 'for example `09:00`'],
    ] as const) {
      const answer = await harness.command('U0ADMIN', 'C0BIDS', `subscribe ${text}`);
      expect(answer.ephemeralTo, text).toBe('U0ADMIN');
      expect(said(answer), text).toContain('is not a time Tenderbot can read');
      expect(said(answer), text).toContain(suggestion);
    }
    expect(await channelSubscriptions('C0BIDS')).toEqual([]);
  });
});

describe('/tender subscribe twice to the same thing', () => {
  it('refuses the second, naming the first, so the channel never gets every post twice', async () => {
    const first = await harness.command(
      'U0ADMIN',
      'C0GENERAL',
      'subscribe search cleaning region:London daily 08:00',
    );
    expect(first.ephemeralTo).toBeNull();
    const [made] = await channelSubscriptions('C0GENERAL');
    expect(made).toBeDefined();
    // The same words and filters in another order are the same feed.
    const again = await harness.command(
      'U0ADMIN',
      'C0GENERAL',
      'subscribe search region:London cleaning daily 08:00',
    );
    expect(again.ephemeralTo).toBe('U0ADMIN');
    expect(said(again)).toContain('already has that subscription');
    expect(said(again)).toContain(made?.id as string);
    expect(await channelSubscriptions('C0GENERAL')).toHaveLength(1);
    // Another time of day is another subscription.
    const evening = await harness.command(
      'U0ADMIN',
      'C0GENERAL',
      'subscribe search cleaning region:London daily 17:00',
    );
    expect(evening.ephemeralTo).toBeNull();
    expect(await channelSubscriptions('C0GENERAL')).toHaveLength(2);
  });
});

describe('usage sentences', () => {
  it('show their <id> placeholders: Slack would read <id> as a link and show “id”', async () => {
    const usage = await harness.command('U0ADMIN', 'C0BIDS', 'subscribe');
    expect(said(usage)).toContain('pipeline &lt;id&gt;');
    expect(said(usage)).not.toMatch(/<id>|<saved search/);
    const comments = await harness.command('U0ADMIN', 'C0BIDS', 'comments');
    expect(said(comments)).toContain('buyer:&lt;id&gt;');
    expect(said(comments)).not.toContain('&amp;lt;');
  });
});
