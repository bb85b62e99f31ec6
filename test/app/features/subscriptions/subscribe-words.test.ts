import { describe, expect, it } from 'vitest';
import { subscribeMeantMessage } from '../../../../src/app/features/subscriptions/subscribe-words.ts';

describe('subscribeMeantMessage (`/tender subscribe` without the kind)', () => {
  const offered = (typed: string) => {
    const message = subscribeMeantMessage(typed);
    const button = JSON.stringify(message.blocks).match(/"value":"([^"]*)"/)?.[1] ?? null;
    return { text: message.text, button };
  };

  it('offers the command most likely meant, as a button that runs it', () => {
    expect(offered('cleaning in Wales')).toEqual({
      text: '`/tender subscribe cleaning in Wales` does not say what to subscribe to. Did you mean `/tender subscribe search cleaning in Wales`?',
      button: 'subscribe search cleaning in Wales',
    });
    expect(offered('serach cleaning daily').button).toBe('subscribe search cleaning daily');
    expect(offered('deadlnes 14').button).toBe('subscribe deadlines 14');
    expect(offered('pipline BID-3 weekly').button).toBe('subscribe pipeline BID-3 weekly');
    expect(offered('BID-3').button).toBe('subscribe pipeline BID-3');
    // Words, so a feed; a feed is never weekly, so said rather than offered.
    expect(offered('bid 3 weekly')).toEqual({
      text: expect.stringContaining('can be daily or hourly, not weekly'),
      button: null,
    });
    expect(offered('BID-3 weekly 09:30').button).toBe('subscribe pipeline BID-3 weekly 09:30');
    expect(offered('deadlnes').button).toBe('subscribe deadlines');
  });

  it('reads a word two edits from a kind as words to search for, not as the kind', () => {
    expect(offered('research services').button).toBe('subscribe search research services');
    expect(offered('pipes and valves').button).toBe('subscribe search pipes and valves');
  });

  it('names a corrected kind that lacks what it needs, with no button that would only be refused', () => {
    expect(offered('serach')).toEqual({
      text: '`/tender subscribe serach` does not say what to subscribe to. Did you mean `/tender subscribe search`, followed by a saved search’s id, or words and filters?',
      button: null,
    });
    expect(offered('pipline').text).toContain('followed by a bid (its id, or BID-3)');
    expect(offered('pipline').button).toBeNull();
    // A cadence or a time is not what a bid summary or a feed needs.
    expect(offered('pipline weekly').text).toContain('followed by a bid (its id, or BID-3)');
    expect(offered('pipline weekly').button).toBeNull();
    expect(offered('serach daily 09:00').button).toBeNull();
  });

  it('offers no button for a command Tenderbot would refuse, and says why', () => {
    // Read as `/tender subscribe` reads it: a time it cannot read is said, not offered.
    const late = offered('BID-3 25:00');
    expect(late.button).toBeNull();
    expect(late.text).toContain('“25:00” is not a time Tenderbot can read');
    expect(offered('deadlnes 120').button).toBeNull();
    expect(offered('pipline BID-3 BID-4').button).toBeNull();
    // What it would take, it offers.
    expect(offered('BID-3 daily 07:30').button).toBe('subscribe pipeline BID-3 daily 07:30');
    expect(offered('deadlnes 30').button).toBe('subscribe deadlines 30');
    // A cadence Tenderbot does not offer is said as one, not taken for a second bid.
    expect(offered('BID-3 monthly')).toEqual({
      text: expect.stringContaining('can be daily or weekly, not monthly'),
      button: null,
    });
  });

  it('gives the usage alone when nothing follows, and escapes what was typed', () => {
    expect(offered('')).toEqual({
      text: expect.stringContaining('Subscribe this channel with'),
      button: null,
    });
    const forged = subscribeMeantMessage('<!channel> *now*');
    // Every mrkdwn text escapes it (the button's label is plain text, which Slack never reads as markup).
    const mrkdwnTexts = [
      forged.text,
      ...JSON.stringify(forged.blocks).matchAll(/"type":"mrkdwn","text":"([^"]*)"/g),
    ].map(String);
    expect(mrkdwnTexts.join(' ')).toContain('&lt;!channel&gt;');
    expect(mrkdwnTexts.join(' ')).not.toContain('<!channel>');
  });
});
