import { describe, expect, it } from 'vitest';
import { respondWithoutResponseUrl, tellPerson } from '../../../src/app/adapters/tell-person.ts';
import { mrkdwn } from '../../../src/app/shared/views/mrkdwn.ts';

/** A chat client that records each call, refusing `refused` methods as Slack does (it throws). */
function recordingChat(refused: string[] = []) {
  const calls: { method: string; args: Record<string, unknown> }[] = [];
  const call = (method: string) => async (args: Record<string, unknown>) => {
    calls.push({ method, args });
    if (refused.includes(method)) throw new Error('An API error occurred: user_not_in_channel');
    return {
      ok: true,
      channel: String(args.channel).startsWith('U') ? 'D0DM' : args.channel,
      ts: `1.${calls.length}`,
    };
  };
  const client = {
    chat: { postMessage: call('postMessage'), postEphemeral: call('postEphemeral'), update: call('update') },
  } as unknown as Parameters<typeof respondWithoutResponseUrl>[0];
  return { client, calls };
}

const homeClick = {
  type: 'block_actions',
  user: { id: 'U0A' },
  container: { type: 'view', view_id: 'V0HOME' },
  view: { id: 'V0HOME', type: 'home' },
};
const channelClick = {
  type: 'block_actions',
  user: { id: 'U0A' },
  container: { type: 'message', message_ts: '1.1', channel_id: 'C0A', thread_ts: '0.9' },
  channel: { id: 'C0A' },
};
const text = mrkdwn`Something to say`;

describe('answering a request Slack sent without a response_url', () => {
  it('a click in the Home tab or a modal: the person’s direct messages, a replacing answer updating the last', async () => {
    const { client, calls } = recordingChat();
    const respond = respondWithoutResponseUrl(client, homeClick, 'xoxb-team');
    await respond({ response_type: 'ephemeral', replace_original: false, text });
    await respond({ replace_original: true, text: mrkdwn`Now the answer` });
    expect(calls).toEqual([
      {
        method: 'postMessage',
        args: { channel: 'U0A', text, unfurl_links: false, token: 'xoxb-team' },
      },
      {
        method: 'update',
        args: { channel: 'D0DM', ts: '1.1', text: 'Now the answer', token: 'xoxb-team' },
      },
    ]);
  });

  it('a click on a message in a channel: an ephemeral message there, in its thread, for the clicker alone', async () => {
    const { client, calls } = recordingChat();
    await respondWithoutResponseUrl(client, channelClick)({ replace_original: true, text });
    expect(calls).toEqual([
      { method: 'postEphemeral', args: { channel: 'C0A', user: 'U0A', text, thread_ts: '0.9' } },
    ]);
  });

  it('an ephemeral message Slack refuses (the person left the channel): their direct messages', async () => {
    const { client, calls } = recordingChat(['postEphemeral']);
    await respondWithoutResponseUrl(client, channelClick)({ text });
    expect(calls.map((call) => [call.method, call.args.channel])).toEqual([
      ['postEphemeral', 'C0A'],
      ['postMessage', 'U0A'],
    ]);
  });

  it('a message for the channel goes to the person alone; nothing is sent for nobody, or to delete', async () => {
    const { client, calls } = recordingChat();
    // Slack sends a response_url with every click on a channel's message: without one, the channel
    // named is nobody's word, so nothing is posted for the whole of it.
    await respondWithoutResponseUrl(client, channelClick)({ response_type: 'in_channel', text });
    await respondWithoutResponseUrl(client, channelClick)({ delete_original: true, text });
    await respondWithoutResponseUrl(client, { type: 'block_actions' })({ text });
    expect(calls).toEqual([
      { method: 'postEphemeral', args: { channel: 'C0A', user: 'U0A', text, thread_ts: '0.9' } },
    ]);
  });

  it('a click in a direct message is answered in the person’s own with the app, named by them', async () => {
    const { client, calls } = recordingChat();
    // D0PEOPLE may be two people's conversation, where the app cannot post.
    await respondWithoutResponseUrl(client, { ...channelClick, channel: { id: 'D0PEOPLE' }, container: {} })({
      text,
    });
    expect(calls).toEqual([{ method: 'postMessage', args: { channel: 'U0A', text, unfurl_links: false } }]);
  });

  it('tellPerson takes the same path without a response_url (a failure in a modal)', async () => {
    const { client, calls } = recordingChat();
    await tellPerson(client, { ...homeClick, view: { id: 'V0M', type: 'modal' } }, { text }, 'xoxb-team');
    expect(calls).toEqual([
      { method: 'postMessage', args: { channel: 'U0A', text, unfurl_links: false, token: 'xoxb-team' } },
    ]);
  });
});
