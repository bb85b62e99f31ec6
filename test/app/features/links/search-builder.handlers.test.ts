import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_MESSAGES_POINTER } from '../../../../src/app/features/links/direct-messages.ts';
import {
  buyerSuggestions,
  openSearchBuilder,
  type SearchBuilderAnswer,
  submitSearchBuilder,
  tenderSuggestions,
  withBuyerName,
} from '../../../../src/app/features/links/search-builder.ts';
import { SEARCH_BUILDER_FIELDS as F, ReachIds } from '../../../../src/app/shared/ids.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';

let harness: HandlerHarness;
let buyer: { id: string; name: string };

beforeAll(async () => {
  harness = await startHandlerHarness();
  // A workspace whose stored key the service refuses (expired): every read it makes fails.
  await harness.context.store.saveConnection({
    teamId: 'T0EXPIRED',
    encryptedApiKey: harness.context.cipher.encrypt(KEYS.aliceExpired),
    serviceUrl: null,
    connectedBy: 'U0ADMIN',
    connectedAt: new Date().toISOString(),
  });
  const buyers = await harness.sandbox.call('GET', '/v1/buyers?limit=1', { key: KEYS.carolMemberAcme });
  buyer = buyers.body.data[0];
});
afterAll(async () => {
  await harness?.close();
});

const PERSON = 'U0MEMBER';

/** The search form opened by `userId` in `teamId`: the window as it was drawn. */
async function openedForm(teamId = harness.slack.teamId, channelId?: string) {
  const before = new Set(harness.slack.openModals(PERSON).map((view) => view.id));
  await openSearchBuilder(harness.context, harness.request().slack, {
    teamId,
    userId: PERSON,
    triggerId: harness.slack.workspaceState.newTrigger(PERSON),
    ...(channelId ? { channelId } : {}),
  });
  const opened = harness.slack.openModals(PERSON).filter((view) => !before.has(view.id));
  expect(opened).toHaveLength(1);
  return opened[0]?.view;
}

/** Submits the form with typed fields (by field name); the acknowledgement and the DM's new messages. */
async function submitted(
  typed: Partial<Record<'words' | 'valueMin' | 'valueMax' | 'cpv', string>>,
  privateMetadata?: string,
) {
  const values: Record<string, Record<string, { value: string }>> = {};
  for (const [name, value] of Object.entries(typed)) {
    const { block, action } = F[name as keyof typeof F];
    values[block] = { [action]: { value } };
  }
  const dm = harness.slack.dmOf(PERSON);
  const before = harness.slack.messagesIn(dm).length;
  const acks: SearchBuilderAnswer[] = [];
  await submitSearchBuilder(
    harness.context,
    harness.request().slack,
    { teamId: harness.slack.teamId, userId: PERSON, values, ...(privateMetadata ? { privateMetadata } : {}) },
    async (answer) => {
      acks.push(answer);
    },
  );
  return { acks, posted: harness.slack.messagesIn(dm).slice(before) };
}

const read = (messages: { text: string; blocks: unknown }[]) =>
  messages.map((message) => `${message.text} ${JSON.stringify(message.blocks)}`).join('\n');

describe('openSearchBuilder', () => {
  it('opens the search form with its fields', async () => {
    const view = await openedForm();
    expect(view.callback_id).toBe(ReachIds.searchBuilderCallback);
    const drawn = JSON.stringify(view.blocks);
    for (const field of [F.words, F.region, F.valueMin, F.buyer]) expect(drawn).toContain(field.action);
  });

  it('says why in the window when the workspace’s key cannot read the data', async () => {
    const view = await openedForm('T0EXPIRED');
    expect(view.callback_id).toBe(ReachIds.searchBuilderCallback);
    expect(JSON.stringify(view.blocks)).toContain(':warning:');
    expect(JSON.stringify(view.blocks)).not.toContain(F.words.action);
  });
});

describe('submitSearchBuilder', () => {
  it('closes the form and answers in direct messages with the command, then the cards', async () => {
    const { acks, posted } = await submitted({ words: 'cleaning', valueMin: '100k' });
    expect(acks).toEqual([undefined]);
    expect(posted[0]?.text).toContain('Your search, as a command you can type anywhere');
    expect(posted[0]?.text).toContain('/tender search cleaning value&gt;=100k');
    expect(read(posted.slice(1))).toContain('cleaning');
    expect(read(posted)).not.toContain('Reference:');
  });

  it('opened from a channel, leaves one line there (to the person alone) pointing to direct messages', async () => {
    const view = await openedForm(harness.slack.teamId, 'C0BIDS');
    const inChannel = harness.slack.messagesIn('C0BIDS', PERSON).length;
    const { posted } = await submitted({ words: 'cleaning' }, view.private_metadata);
    expect(read(posted)).toContain('Your search, as a command you can type anywhere');
    const pointers = harness.slack.messagesIn('C0BIDS', PERSON).slice(inChannel);
    expect(pointers).toHaveLength(1);
    expect(pointers[0]?.ephemeralTo).toBe(PERSON);
    expect(pointers[0]?.text).toBe(DIRECT_MESSAGES_POINTER);
    // Opened where there is no channel (the shortcut): no line anywhere but the answer.
    const elsewhere = await openedForm();
    const again = harness.slack.messagesIn('C0BIDS', PERSON).length;
    await submitted({ words: 'cleaning' }, elsewhere.private_metadata);
    expect(harness.slack.messagesIn('C0BIDS', PERSON)).toHaveLength(again);
  });

  it('keeps a bad value on its field, and posts nothing', async () => {
    const { acks, posted } = await submitted({ words: 'cleaning', valueMin: 'lots', cpv: '72' });
    expect(acks).toEqual([
      {
        response_action: 'errors',
        errors: { [F.valueMin.block]: 'Write an amount such as 250000, 100k or 2.5m (no words).' },
      },
    ]);
    expect(posted).toEqual([]);
  });
});

describe('the form’s options and the buyer’s name', () => {
  it('suggests buyers and tenders for what was typed', async () => {
    const buyers = await buyerSuggestions(harness.context, harness.slack.teamId, buyer.name);
    expect(buyers.options.map((option) => option.value)).toContain(buyer.id);
    const tenders = await tenderSuggestions(harness.context, harness.slack.teamId, TENDER_A);
    expect(tenders.options.map((option) => option.value)).toEqual([TENDER_A]);
  });

  it('suggests nothing for nothing typed, or when the key cannot read', async () => {
    expect(await buyerSuggestions(harness.context, harness.slack.teamId, '  ')).toEqual({ options: [] });
    expect(await tenderSuggestions(harness.context, harness.slack.teamId, '')).toEqual({ options: [] });
    expect(await buyerSuggestions(harness.context, 'T0EXPIRED', buyer.name)).toEqual({ options: [] });
    expect(await tenderSuggestions(harness.context, 'T0EXPIRED', 'cleaning')).toEqual({ options: [] });
  });

  it('writes a buyer id as the buyer’s name only when it can be read', async () => {
    const text = `cleaning buyer:${buyer.id}`;
    // A name only this buyer matches replaces the id; a name others match too keeps it.
    const matching = await harness.sandbox.call(
      'GET',
      `/v1/buyers?q=${encodeURIComponent(buyer.name)}&limit=2`,
      {
        key: KEYS.carolMemberAcme,
      },
    );
    const alone = matching.body.pagination.total === 1;
    expect(await withBuyerName(harness.context, harness.slack.teamId, text)).toBe(
      alone ? `cleaning buyer:"${buyer.name}"` : text,
    );
    expect(await withBuyerName(harness.context, 'T0EXPIRED', text)).toBe(text);
  });
});
