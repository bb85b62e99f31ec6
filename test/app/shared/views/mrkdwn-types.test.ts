import { describe, expect, it } from 'vitest';
import type { AppChat, AppRespond } from '../../../../src/app/adapters/app-slack.ts';
import type { ScheduledSlack } from '../../../../src/app/adapters/scheduled-slack.ts';
import {
  code,
  joinMrkdwn,
  literalText,
  type Mrkdwn,
  mention,
  mrkdwn,
  safeText,
  storedMrkdwn,
  text,
} from '../../../../src/app/shared/views/mrkdwn.ts';
import type { Block, Message } from '../../../../src/app/shared/views/safe-blocks.ts';
import { contextLine, section } from '../../../../src/app/shared/views/tender-card.ts';

/**
 * Outside text given where Slack parses mrkdwn does not compile: each `@ts-expect-error` below is
 * checked by `tsc --noEmit` (it fails if the line compiles), and the calls never run.
 */
function typeLevelChecks(title: string, chat: AppChat, respond: AppRespond, scheduled: ScheduledSlack): void {
  // @ts-expect-error a plain string is not Mrkdwn: a mrkdwn field takes only escaped text.
  const field: Block = { type: 'section', text: { type: 'mrkdwn', text: title } };
  // @ts-expect-error nor are a section's fields.
  const fields: Block = { type: 'section', fields: [{ type: 'mrkdwn', text: `*Buyer* ${title}` }] };
  // @ts-expect-error nor a context element.
  const context: Block = { type: 'context', elements: [{ type: 'mrkdwn', text: title }] };
  // @ts-expect-error the section builder takes Mrkdwn.
  section(title);
  // @ts-expect-error and so does a context line.
  contextLine(`Shared by ${title}`);
  // @ts-expect-error a message's text is read for notifications: Mrkdwn only.
  const message: Message = { text: title, blocks: [] };
  // @ts-expect-error chat.postMessage's text.
  void chat.postMessage({ channel: 'C1', text: title });
  // @ts-expect-error chat.postEphemeral's text.
  void chat.postEphemeral({ channel: 'C1', user: 'U1', text: title });
  // @ts-expect-error chat.update's text.
  void chat.update({ channel: 'C1', ts: '1.2', text: title });
  const preview = { blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: title } }] };
  // @ts-expect-error a preview's blocks are safe blocks: a plain mrkdwn string does not fit.
  void chat.unfurl({ channel: 'C1', ts: '1.2', unfurls: { u: preview } });
  // @ts-expect-error a response_url body's text.
  void respond({ text: title });
  // @ts-expect-error the scheduler's own client.
  void scheduled.chat.postMessage({ teamId: 'T1', channel: 'C1', text: title });
  // @ts-expect-error the template takes Mrkdwn pieces, not outside strings (escape them with text()).
  mrkdwn`*${title}*`;
  // @ts-expect-error nor can a list of outside strings be joined into Mrkdwn.
  joinMrkdwn([title]);
  const button = { type: 'button' as const, text: { type: 'plain_text' as const, text: 'Open' } };
  // @ts-expect-error a button's address from outside is a plain string: only webUrl() makes one.
  const linked: Block = { type: 'actions', elements: [{ ...button, url: title }] };
  void linked;
  // Escaped, each of these compiles.
  const escaped: Block[] = [section(mrkdwn`*${text(title)}*`), contextLine(safeText(title, 100))];
  void chat.postMessage({ channel: 'C1', text: mrkdwn`${text(title)}`, blocks: escaped });
  void [field, fields, context, message, escaped];
}

describe('Mrkdwn, by construction', () => {
  it('is a compile-time guard (the expectations above are checked by tsc)', () => {
    expect(typeof typeLevelChecks).toBe('function');
  });

  it('the template keeps the app’s own literals and Mrkdwn pieces as they are, and numbers as digits', () => {
    const title = text('<!channel> *urgent* & co');
    expect(mrkdwn`*${title}* · ${3} bids`).toBe('*&lt;!channel&gt; \u2217urgent\u2217 &amp; co* · 3 bids');
    expect(mrkdwn`\`/tender search &lt;words&gt;\``).toBe('`/tender search &lt;words&gt;`');
    expect(joinMrkdwn([mrkdwn`a`, text('<b>')], mrkdwn`, `)).toBe('a, &lt;b&gt;');
  });

  it('refuses to be called as a function with a made-up array', () => {
    const fake = ['<!channel>'] as unknown as TemplateStringsArray;
    expect(() => mrkdwn(fake)).toThrow(TypeError);
  });

  it('a title’s marks cannot pair, so `*urgent*` does not end the card’s bold title; a word keeps its own', () => {
    const title = text('Cleaning *urgent* _soon_ ~old~ `x` on_hold A*B');
    expect(title).toBe(
      'Cleaning \u2217urgent\u2217 \u02CDsoon\u02CD \u223Cold\u223C \u02CBx\u02CB on_hold A*B',
    );
    expect(mrkdwn`*${text('*urgent*')}*`).toBe('*\u2217urgent\u2217*');
    expect(title).not.toContain('\u200B');
  });

  it('what a person typed reads and copies as typed: as it is, or in a code span', () => {
    expect(literalText('cleaning services')).toBe('cleaning services');
    expect(literalText('value>100k')).toBe('value&gt;100k');
    expect(literalText('*urgent*')).toBe('`*urgent*`');
    expect(literalText('<!here>')).toBe('&lt;!here&gt;');
    expect(code('ocds_b5fd17-1')).toBe('`ocds_b5fd17-1`');
  });

  it('mentions only ids, and reads stored mrkdwn back only when it holds no < or >', () => {
    expect(mention('U123ABC')).toBe('<@U123ABC>');
    expect(mention('<!channel>')).toBe('&lt;!channel&gt;');
    expect(storedMrkdwn('New tenders for “`clean*`”')).toBe('New tenders for “`clean*`”');
    expect(storedMrkdwn('<!channel>')).toBe('&lt;!channel&gt;');
    const typed: Mrkdwn = storedMrkdwn('x');
    expect(typed).toBe('x');
  });
});
