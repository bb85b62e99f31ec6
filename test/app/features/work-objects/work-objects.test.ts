import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotStore } from '../../../../src/app/storage/bot-store.ts';
import { ProcurementClient } from '../../../../src/client/procurement-client.ts';
import type { Pipeline, Tender } from '../../../../src/contract/schemas.ts';
import type { FakeMessage } from '../../../../src/fake-slack/fake-slack.ts';
import type { Entity } from '../../../../src/fake-slack/work-objects.ts';
import { eventually, type RunningBot, startBotWithStore } from '../../../support/bot.ts';
import { KEYS, TENDER_A, TENDER_B } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';

// Work Objects (issue 26 item 3) through the real app and the fake Slack: links unfurled as
// entities, the flexpane shown with the opener's own access, and the plain card where Slack
// refuses entities.
const CHANNEL = 'C0BIDS';
/** No key of their own: the workspace's (Carol's, a member of Acme) is theirs. */
const ADMIN = 'U0ADMIN';
/** Links Dave's key (Beta): Acme's bids are not his to read. */
const MEMBER = 'U0MEMBER';

let sandbox: TestSandbox;
let bot: RunningBot;
let store: BotStore;
let asCarol: ProcurementClient;
let linkPersonalKey: (userId: string, apiKey: string) => Promise<void>;
let bid: Pipeline;
let tender: Tender;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  ({ bot, store, linkPersonalKey } = await startBotWithStore(sandbox));
  asCarol = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
  tender = await asCarol.tenders.get(TENDER_A);
  bid = await asCarol.pipelines.create({
    name: 'Cleaning services bid',
    tenderId: TENDER_A,
    targetSubmissionDate: '2027-01-15',
    stages: [{ name: 'Qualify' }, { name: 'Write the response' }],
  });
}, 60_000);

afterAll(async () => {
  await store?.close();
  await bot?.stop();
  await asCarol?.close();
  await sandbox?.stop();
});

const tenderLink = (id: string) => `${sandbox.baseUrl}/v1/tenders/${id}`;
const bidLink = (id: string) => `${sandbox.baseUrl}/v1/pipelines/${id}`;

/** A person pastes links; Slack sends `link_shared` for them (the service's host is the app's to unfurl). */
async function paste(urls: string[], user: string | null = MEMBER): Promise<FakeMessage> {
  const message = bot.slack.postAsUser(
    user ?? MEMBER,
    CHANNEL,
    `Look: ${urls.map((url) => `<${url}>`).join(' ')}`,
  );
  const answer = await bot.slack.sendEvent({
    type: 'link_shared',
    channel: CHANNEL,
    // null: an event that does not say who posted the message.
    ...(user ? { user } : {}),
    message_ts: message.ts,
    links: urls.map((url) => ({ url, domain: new URL(url).hostname })),
  });
  expect(answer.status).toBe(200);
  return message;
}

function field(entity: Entity, key: string): unknown {
  return entity.entity_payload.custom_fields?.find((custom) => custom.key === key)?.value;
}

describe('Work Objects', () => {
  it('unfurls a tender link and a bid link as entities with their facts', async () => {
    bot.slack.workObjects.enabled = true;
    const message = await paste([tenderLink(TENDER_A), bidLink(bid.id)]);
    const entities = await eventually(
      () =>
        bot.slack.workObjects.entitiesOf(message).length === 2
          ? bot.slack.workObjects.entitiesOf(message)
          : null,
      'two entities on the message',
    );
    const tenderEntity = entities.find((entity) => entity.app_unfurl_url === tenderLink(TENDER_A)) as Entity;
    expect(tenderEntity.entity_type).toBe('slack#/entities/item');
    expect(tenderEntity.external_ref).toEqual({ id: TENDER_A, type: 'tender' });
    expect(tenderEntity.entity_payload.attributes.title.text).toBe(tender.title);
    expect(field(tenderEntity, 'status')).toMatch(new RegExp(tender.status.replace(/_/g, ' '), 'i'));
    expect(field(tenderEntity, 'buyer')).toBe(tender.buyer?.name ?? 'Not stated');
    expect(String(field(tenderEntity, 'deadline'))).toMatch(tender.deadline ? /clos/ : /No deadline/);
    expect(field(tenderEntity, 'value')).toBeTruthy();

    const bidEntity = entities.find((entity) => entity.app_unfurl_url === bidLink(bid.id)) as Entity;
    expect(bidEntity.entity_type).toBe('slack#/entities/task');
    expect(bidEntity.external_ref).toEqual({ id: bid.id, type: 'bid' });
    expect(bidEntity.entity_payload.attributes.title.text).toBe('Cleaning services bid');
    expect(bidEntity.entity_payload.fields?.status).toEqual({ value: 'Draft' });
    expect(bidEntity.entity_payload.fields?.due_date).toEqual({
      type: 'slack#/types/date',
      value: '2027-01-15',
    });
    expect(bidEntity.entity_payload.fields?.assignee).toEqual({
      type: 'slack#/types/user',
      user: { text: bid.owner.name },
    });
    expect(field(bidEntity, 'stage')).toBe('Qualify (Pending)');
    expect(field(bidEntity, 'target_date')).toBe('2027-01-15');
    // Entities only: no plain card beside them.
    expect(message.unfurls).toBeUndefined();
  });

  /**
   * A tender link and a bid link pasted by `poster` (null: an event that does not name them): the
   * entities first unfurled for it, and those it has once a member's paste of both, after it, is
   * answered with both (so the first paste was not still under way).
   */
  async function unfurledFor(poster: string | null) {
    const message = await paste([tenderLink(TENDER_A), bidLink(bid.id)], poster);
    const first = await eventually(
      () =>
        bot.slack.workObjects.entitiesOf(message).length > 0
          ? bot.slack.workObjects.entitiesOf(message)
          : null,
      'the tender entity',
    );
    const control = await paste([tenderLink(TENDER_A), bidLink(bid.id)]);
    await eventually(
      () => (bot.slack.workObjects.entitiesOf(control).length === 2 ? true : null),
      'the member’s two entities',
    );
    return { first, refs: bot.slack.workObjects.entitiesOf(message).map((entity) => entity.external_ref) };
  }

  it('unfurls no bid a guest links to (guests are refused bid cards in channels), and still their tender', async () => {
    bot.slack.workObjects.enabled = true;
    const guest = await unfurledFor('U0GUEST');
    expect(guest.refs).toEqual([{ id: TENDER_A, type: 'tender' }]);
    expect(guest.first).toHaveLength(1);
    // An event that does not name the poster: taken as a guest's, the bid left alone too.
    expect((await unfurledFor(null)).refs).toEqual([{ id: TENDER_A, type: 'tender' }]);
  });

  it('unfurls no bid when Slack cannot say whether its poster is a guest (taken as one), and still the tender', async () => {
    bot.slack.workObjects.enabled = true;
    // The admin has not pasted before here, so their facts are asked of Slack, which fails once.
    bot.slack.failNext('users.info', { kind: 'error', error: 'internal_error' }, { channel: ADMIN });
    expect((await unfurledFor(ADMIN)).refs).toEqual([{ id: TENDER_A, type: 'tender' }]);
  });

  it('shows the bid’s details in the flexpane to a person whose key may read it', async () => {
    const message = await paste([bidLink(bid.id)]);
    await eventually(() => bot.slack.workObjects.entitiesOf(message)[0], 'the bid entity');
    const { answer, presented } = await bot.slack.workObjects.openFlexpane(ADMIN, message, bidLink(bid.id));
    expect(answer.status).toBe(200);
    const shown = await presented;
    expect(shown.userId).toBe(ADMIN);
    expect(shown.error).toBeUndefined();
    expect(shown.metadata?.external_ref.id).toBe(bid.id);
    expect(shown.metadata?.entity_payload.attributes.title.text).toBe('Cleaning services bid');
    expect(shown.metadata?.entity_payload.fields?.status).toEqual({ value: 'Draft' });
  });

  it('refuses the flexpane to a person whose own key cannot read the bid, showing none of it', async () => {
    await linkPersonalKey(MEMBER, KEYS.daveBeta);
    const message = await paste([bidLink(bid.id)]);
    await eventually(() => bot.slack.workObjects.entitiesOf(message)[0], 'the bid entity');
    const { presented } = await bot.slack.workObjects.openFlexpane(MEMBER, message, bidLink(bid.id));
    const shown = await presented;
    expect(shown.userId).toBe(MEMBER);
    expect(shown.metadata).toBeUndefined();
    expect(shown.error?.status).toBe('custom');
    expect(shown.error?.custom_title).toBe('You cannot see this bid');
    expect(shown.error?.custom_message).toContain('your own key');
    expect(JSON.stringify(shown)).not.toContain('Cleaning services bid');
    // The person opened it from a link: no service id (and no mrkdwn code marks) in what they read.
    expect(shown.error?.custom_message).not.toContain(bid.id);
    expect(shown.error?.custom_message).not.toContain('`');
  });

  it('keeps the plain tender card where the workspace does not have Work Objects', async () => {
    bot.slack.workObjects.enabled = false;
    const url = tenderLink(TENDER_B);
    const message = await paste([url]);
    const preview = await eventually(() => message.unfurls?.[url], 'the plain card');
    const title = (await asCarol.tenders.get(TENDER_B)).title;
    expect(JSON.stringify(preview.blocks)).toContain(JSON.stringify(title).slice(1, -1));
    expect(bot.slack.workObjects.entitiesOf(message)).toEqual([]);
    // Slack was asked for entities first, refused them, then got the card.
    const unfurls = bot.slack.callsOf('chat.unfurl').slice(-2);
    expect(unfurls.map((call) => (call.args.metadata ? 'entities' : 'card'))).toEqual(['entities', 'card']);
  });
});
