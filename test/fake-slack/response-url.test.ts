import { describe, expect, it } from 'vitest';
import { respondAt } from '../../src/fake-slack/response-url.ts';
import { Workspace } from '../../src/fake-slack/workspace.ts';

const idOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('response_url', () => {
  it('is one per command, so two commands typed at once never replace each other’s answers', () => {
    const workspace = new Workspace({ signingSecret: 's', botToken: 'xoxb-t' });
    workspace.baseUrl = 'http://127.0.0.1:1';
    const first = idOf(workspace.newResponseUrl('C0BIDS', 'U0MEMBER'));
    const second = idOf(workspace.newResponseUrl('C0BIDS', 'U0MEMBER'));
    expect(first).not.toBe(second);
    // Each command first says it is slow, then its answer replaces that notice: in any order.
    respondAt(workspace, first, { text: 'first: slow…' });
    respondAt(workspace, second, { text: 'second: slow…' });
    respondAt(workspace, second, { text: 'second: answer', replace_original: true });
    respondAt(workspace, first, { text: 'first: answer', replace_original: true });
    expect(workspace.messagesIn('C0BIDS', 'U0MEMBER').map((message) => message.text)).toEqual([
      'first: answer',
      'second: answer',
    ]);
  });

  it('is one per click too, each naming the person who clicked', () => {
    const workspace = new Workspace({ signingSecret: 's', botToken: 'xoxb-t' });
    const urls = ['U0MEMBER', 'U0GUEST', 'U0MEMBER'].map((user) =>
      idOf(workspace.newResponseUrl('C0BIDS', user, '1.000001')),
    );
    expect(new Set(urls).size).toBe(3);
    respondAt(workspace, urls[1] ?? '', { text: 'Guests can read tenders but cannot bookmark.' });
    expect(workspace.messagesIn('C0BIDS', 'U0GUEST').map((message) => message.ephemeralTo)).toEqual([
      'U0GUEST',
    ]);
    expect(workspace.messagesIn('C0BIDS', 'U0MEMBER')).toEqual([]);
  });
});
