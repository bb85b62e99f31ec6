import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerDirectMessage } from '../../../../src/app/features/links/direct-messages.ts';
import type { SlackRequest } from '../../../../src/app/shared/feature-context.ts';
import { TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';

let harness: HandlerHarness;

beforeAll(async () => {
  harness = await startHandlerHarness();
});
afterAll(async () => {
  await harness?.close();
});

const PERSON = 'U0MEMBER';

/** Sends `text` as a direct message to Tenderbot; what Tenderbot posted back in that conversation. */
async function directMessage(
  text: string,
  runCommandText?: (request: SlackRequest, text: string) => Promise<void>,
) {
  const channelId = harness.slack.dmOf(PERSON);
  const before = harness.slack.messagesIn(channelId).length;
  await answerDirectMessage(
    harness.context,
    harness.request().slack,
    { teamId: harness.slack.teamId, userId: PERSON, channelId, text },
    runCommandText,
  );
  return harness.slack.messagesIn(channelId).slice(before);
}

const read = (messages: { text: string; blocks: unknown }[]) =>
  messages.map((message) => `${message.text} ${JSON.stringify(message.blocks)}`).join('\n');

describe('answerDirectMessage', () => {
  it('searches the words of `search …` and answers with tender cards', async () => {
    const answers = await directMessage('search cleaning');
    expect(answers.length).toBeGreaterThan(0);
    expect(read(answers)).toContain('cleaning');
    expect(read(answers)).toMatch(/ocds-tbdemo-\d+/);
    expect(read(answers)).not.toContain('Searched:');
    expect(read(answers)).not.toContain('Reference:');
  });

  it('reads a sentence as filters and shows the command it ran first', async () => {
    const [first, ...rest] = await directMessage('cleaning over £1m');
    expect(JSON.stringify(first?.blocks?.[0])).toContain('Searched: `/tender search cleaning value&gt;1m`');
    expect(read(rest)).not.toContain('Reference:');
    expect(JSON.stringify(first?.blocks)).toContain('£1,000,000');
  });

  it('shows the tender a link to the service names', async () => {
    const answers = await directMessage(`<${harness.sandbox.baseUrl}/v1/tenders/${TENDER_A}>`);
    expect(read(answers)).toContain(TENDER_A);
  });

  it('runs a command word through the router it is given', async () => {
    const ran: string[] = [];
    const answers = await directMessage('bookmarks', async (_request, text) => {
      ran.push(text);
    });
    expect(ran).toEqual(['bookmarks']);
    expect(answers).toEqual([]);
  });

  it('answers nothing to an empty message, help to a greeting, and a suggestion to a mistyped command', async () => {
    expect(await directMessage('   ')).toEqual([]);
    expect(await directMessage('/tender')).toEqual([]);
    const help = await directMessage('hello');
    expect(read(help)).toContain('/tender search');
    expect(read(await directMessage('what can you do?'))).toContain('/tender search');
    const thanks = read(await directMessage('thanks!'));
    expect(thanks).toContain('Glad to help.');
    expect(thanks).not.toContain('Found no tenders');
    const meant = await directMessage('/tender serach cleaning');
    expect(read(meant)).toContain('Did you mean `/tender search`?');
  });

  it('says plainly when a link names a tender the service does not hold', async () => {
    const answers = await directMessage(`<${harness.sandbox.baseUrl}/v1/tenders/ocds-tbdemo-9999999>`);
    expect(read(answers)).toContain('Tenderbot does not hold the tender that message names');
  });
});
