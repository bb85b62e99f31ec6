import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNNING_BIDS_BUDGET_MS } from '../../../../src/app/features/bids/running-bids.ts';
import { openStartBidModal, submitStartBid } from '../../../../src/app/features/bids/start-bid-form.ts';
import { formatClosing } from '../../../../src/app/features/bids/views/tender-closes.ts';
import { PipelineIds } from '../../../../src/app/shared/ids.ts';
import { daysUntil, formatDay } from '../../../../src/app/shared/views/bid-parts.ts';
import type { FakeView } from '../../../../src/fake-slack/types.ts';
import { TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { type ServiceProxy, startServiceProxy } from '../../../support/service-proxy.ts';
import { textOf } from '../../../support/slack-text.ts';
import { bidNow, cardsOf, dayAfter, modalOpenedBy, newBid, openTenders } from './handler-support.ts';

const BIDS = 'C0BIDS';
/** Long enough that the local service always answers within it: the quick path, whatever the machine's load. */
const PATIENT_BUDGET_MS = 60_000;

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

async function openFor(userId: string, tenderId = TENDER_A): Promise<FakeView> {
  return modalOpenedBy(harness, userId, (triggerId) =>
    openStartBidModal(harness.context, harness.request({ userId, channelId: BIDS, kind: 'click' }), {
      triggerId,
      tenderId,
    }),
  );
}

/** The form's fields as view.state.values holds them. */
function valuesOf(fields: { name: string; summary?: string; targetDate?: string | null; stages?: string }) {
  return {
    [PipelineIds.nameBlock]: { [PipelineIds.nameInput]: { type: 'plain_text_input', value: fields.name } },
    [PipelineIds.summaryBlock]: {
      [PipelineIds.summaryInput]: { type: 'plain_text_input', value: fields.summary ?? '' },
    },
    [PipelineIds.targetBlock]: {
      [PipelineIds.targetInput]: { type: 'datepicker', selected_date: fields.targetDate ?? null },
    },
    [PipelineIds.stagesBlock]: {
      [PipelineIds.stagesInput]: {
        type: 'plain_text_input',
        value: fields.stages ?? 'Qualify | 2\nWrite | 5',
      },
    },
  };
}

async function submit(
  userId: string,
  view: FakeView,
  values: unknown,
  privateMetadata = view.view.private_metadata,
) {
  const acks: unknown[] = [];
  await submitStartBid(
    harness.context,
    harness.request({ userId }).slack,
    { teamId: harness.slack.teamId, userId, values, privateMetadata, viewId: view.id },
    async (answer) => {
      acks.push(answer);
    },
    PATIENT_BUDGET_MS,
  );
  return acks;
}

async function bidsNamed(name: string) {
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  return (await client.pipelines.list({ q: name, archived: 'all', limit: 50 })).data.filter(
    (pipeline) => pipeline.name === name,
  );
}

function modalNow(userId: string, viewId: string): FakeView {
  const view = harness.slack.openModals(userId).find((candidate) => candidate.id === viewId);
  if (!view) throw new Error(`modal ${viewId} is not open`);
  return view;
}

describe('openStartBidModal ("Start a bid" on a tender card)', () => {
  it('opens the form filled from the tender: its name, and the stage template', async () => {
    const opened = await openFor('U0ADMIN');
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    const tender = await client.tenders.get(TENDER_A);
    const read = JSON.stringify(opened.view);
    expect(read).toContain(JSON.stringify(`Bid for ${tender.title}`.slice(0, 200)).slice(1, -1));
    expect(read).toContain(PipelineIds.stagesInput);
    expect(opened.view.private_metadata).not.toBe('');
  });

  it('a guest gets a sentence in place of the form', async () => {
    const opened = await openFor('U0GUEST');
    expect(textOf(opened.view)).toContain('Guests can read bids but cannot start them.');
    expect(JSON.stringify(opened.view)).not.toContain(PipelineIds.nameInput);
  });

  it('a tender that cannot be found: says no bid can be started from it', async () => {
    const opened = await openFor('U0ADMIN', 'ocds-tbdemo-9999999');
    expect(textOf(opened.view)).toContain('That tender can no longer be found');
    expect(JSON.stringify(opened.view)).not.toContain(PipelineIds.nameInput);
  });
});

describe('submitStartBid (the form’s Start)', () => {
  it('creates the bid once with its stages, records who started it and posts its card in the channel', async () => {
    const opened = await openFor('U0ADMIN');
    const name = 'Handler test: started bid';
    const acks = await submit('U0ADMIN', opened, valuesOf({ name, summary: '  Lots 1 and 2  ' }));
    expect(acks).toEqual([undefined]);
    const made = await bidsNamed(name);
    expect(made).toHaveLength(1);
    // The list holds summaries: the bid in full, stages and all.
    const bid = await bidNow(harness, made[0]?.id ?? '');
    expect(bid.tenderId).toBe(TENDER_A);
    expect(bid.summary).toBe('Lots 1 and 2');
    expect([...bid.stages].sort((a, b) => a.position - b.position).map((stage) => stage.name)).toEqual([
      'Qualify',
      'Write',
    ]);
    const starters = await harness.context.store.bidStarters(harness.slack.teamId, [bid.id]);
    expect(starters.get(bid.id)).toMatchObject({ userId: 'U0ADMIN', ownKey: false });
    expect(cardsOf(harness, BIDS, bid.id)).toHaveLength(1);
    // The card names its tender by its title (read from the service), beside the id.
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    const tender = await client.tenders.get(TENDER_A);
    expect(textOf(cardsOf(harness, BIDS, bid.id)[0])).toContain(
      JSON.stringify(`tender “${tender.title.slice(0, 60)}`).slice(1, -1),
    );

    // The same form submitted again (a double click, a retry): no second bid, no second card.
    await submit('U0ADMIN', opened, valuesOf({ name, summary: '  Lots 1 and 2  ' }));
    expect(await bidsNamed(name)).toHaveLength(1);
    expect(cardsOf(harness, BIDS, bid.id)).toHaveLength(1);
  });

  it('fields that are wrong: a sentence under each, nothing created', async () => {
    const opened = await openFor('U0ADMIN');
    const acks = await submit('U0ADMIN', opened, valuesOf({ name: '   ', stages: 'Qualify | two' }));
    expect(acks).toHaveLength(1);
    expect(acks[0]).toEqual({
      response_action: 'errors',
      errors: {
        [PipelineIds.nameBlock]: 'Give the bid a name.',
        [PipelineIds.stagesBlock]:
          'Line 1: after the bar, give the stage’s length as a whole number of days, such as “Draft response | 5”.',
      },
    });
  });

  it('a past target date is asked about once, then taken', async () => {
    const opened = await openFor('U0ADMIN');
    const name = 'Handler test: past target';
    const values = valuesOf({ name, targetDate: '2020-01-02' });
    const first = await submit('U0ADMIN', opened, values);
    expect(first[0]).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(first[0])).toContain('is in the past');
    expect(await bidsNamed(name)).toEqual([]);
    expect(await submit('U0ADMIN', opened, values)).toEqual([undefined]);
    expect((await bidsNamed(name))[0]?.targetSubmissionDate).toBe('2020-01-02');
  });

  it('forged or stale metadata: the form says it is out of date, nothing created', async () => {
    const opened = await openFor('U0ADMIN');
    const name = 'Handler test: forged form';
    const acks = await submit('U0ADMIN', opened, valuesOf({ name }), 'forged-metadata');
    expect(acks).toHaveLength(1);
    expect(acks[0]).toMatchObject({ response_action: 'update' });
    expect(textOf((acks[0] as { view: unknown }).view)).toContain('This form is out of date.');
    expect(await bidsNamed(name)).toEqual([]);
    expect(modalNow('U0ADMIN', opened.id).id).toBe(opened.id);
  });

  it('a guest’s submission is refused on the form, nothing created', async () => {
    const opened = await openFor('U0ADMIN');
    const name = 'Handler test: guest submission';
    // A target date in the past and stages longer than the time left: refused first, not asked about them.
    const past = dayAfter(new Date().toISOString().slice(0, 10), -3);
    const acks = await submit('U0GUEST', opened, valuesOf({ name, targetDate: past, stages: 'All | 3650' }));
    expect(acks[0]).toEqual({
      response_action: 'errors',
      errors: {
        [PipelineIds.nameBlock]: 'Guests can read bids but cannot start them. Ask a member of the workspace.',
      },
    });
    expect(await bidsNamed(name)).toEqual([]);
  });

  it('a sentence on the form is plain text: no mrkdwn code marks or escapes in a view’s error', async () => {
    const opened = await openFor('U0ADMIN');
    const name = 'Handler test: personal keys required';
    const teamId = harness.slack.teamId;
    await harness.context.store.saveWorkspaceSettings({ teamId, personalKeysForWrites: true });
    try {
      const acks = await submit('U0MEMBER', opened, valuesOf({ name }));
      const error = (acks[0] as { errors: Record<string, string> }).errors[PipelineIds.nameBlock] as string;
      expect(error).toContain('Run /tender connect me to link it');
      expect(error).not.toMatch(/`|&lt;|&gt;|&amp;/);
    } finally {
      await harness.context.store.saveWorkspaceSettings({ teamId, personalKeysForWrites: false });
    }
    expect(await bidsNamed(name)).toEqual([]);
  });
});

/** The blocks of the form as Slack shows it, each as its JSON. */
function blockTexts(view: FakeView): string[] {
  return (view.view.blocks as unknown[]).map((block) => JSON.stringify(block));
}

describe('bids already running for the tender', () => {
  it('a second "Start a bid" on a tender names the bid running for it near the top, and still starts another', async () => {
    const [tender] = await openTenders(harness, 1, [TENDER_A]);
    const tenderId = tender?.id as string;
    const first = await openFor('U0ADMIN', tenderId);
    expect(textOf(first.view)).not.toContain('already running');
    expect(await submit('U0ADMIN', first, valuesOf({ name: 'Handler test: lot 1' }))).toEqual([undefined]);
    const [started] = await bidsNamed('Handler test: lot 1');
    const card = cardsOf(harness, BIDS, started?.id as string)[0];
    const reference = /`(BID-\d+)`/.exec(textOf(card))?.[1];
    expect(reference).toBeDefined();

    const second = await openFor('U0MEMBER', tenderId);
    const blocks = blockTexts(second);
    const warning = blocks.findIndex((text) => text.includes('already running'));
    expect(blocks[warning]).toContain(
      `\`${reference}\` “Handler test: lot 1” (Draft · started by <@U0ADMIN> · owner in the service: Carol Member, who made the workspace’s key) is already running for this tender. You can still start another one (for another lot, say).`,
    );
    // Near the top: before every field of the form.
    expect(warning).toBeLessThan(blocks.findIndex((text) => text.includes(PipelineIds.nameInput)));
    expect(await submit('U0MEMBER', second, valuesOf({ name: 'Handler test: lot 2' }))).toEqual([undefined]);
    expect((await bidsNamed('Handler test: lot 2'))[0]?.tenderId).toBe(tenderId);
  });

  it('bids that are archived, won, lost or no bid do not count; several running are counted', async () => {
    const [, ended, busy] = await openTenders(harness, 3, [TENDER_A]);
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    for (const [name, change] of [
      ['Handler test: archived', 'archive'],
      ['Handler test: won', 'won'],
      ['Handler test: lost', 'lost'],
      ['Handler test: no bid', 'no_bid'],
    ] as const) {
      const bid = await newBid(harness, name, ['Qualify'], ended?.id as string);
      if (change === 'archive') await client.pipelines.archive(bid.id, true);
      else await client.pipelines.update(bid.id, { status: change });
    }
    expect(textOf((await openFor('U0ADMIN', ended?.id as string)).view)).not.toContain('already running');

    for (const name of ['One', 'Two', 'Three', 'Four'])
      await newBid(harness, `Handler test: busy ${name}`, ['Qualify'], busy?.id as string);
    const shown = textOf((await openFor('U0ADMIN', busy?.id as string)).view);
    expect(shown).toContain('4 bids are already running for this tender: `BID-');
    expect(shown).toContain('“Handler test: busy Four” (Draft · owner Carol Member)');
    expect(shown).toContain('and 1 more (`/tender pipelines` lists them).');
  });

  it('a lookup that fails still opens the form, saying the check could not be made', async () => {
    const { proxy, view } = await openedWithBidsList((proxy) => {
      proxy.fail = true;
    });
    expect(proxy.seen).toBeGreaterThan(0);
    expect(JSON.stringify(view)).toContain(PipelineIds.nameInput);
    expect(textOf(view)).toContain(COULD_NOT_CHECK);
  });
});

describe('a slow list of bids', () => {
  it('holds the form no longer than the look’s budget: it opens saying the check could not be made', async () => {
    const started = Date.now();
    const { proxy, view } = await openedWithBidsList((proxy) => {
      proxy.delayMs = 10_000;
    });
    // Bounded by the budget, not by the list's 10 s (nor a retry of it).
    expect(Date.now() - started).toBeLessThan(RUNNING_BIDS_BUDGET_MS + 4_000);
    expect(proxy.seen).toBe(1);
    expect(JSON.stringify(view)).toContain(PipelineIds.nameInput);
    expect(textOf(view)).toContain(COULD_NOT_CHECK);
  }, 20_000);
});

const COULD_NOT_CHECK = 'Tenderbot could not check whether another bid is already running for this tender:';

/**
 * The Start a bid form on TENDER_A, opened by the admin through a proxy in front of the service
 * whose list of bids `setUp` makes fail or slow; the proxy is stopped after, its counts kept.
 */
async function openedWithBidsList(setUp: (proxy: ServiceProxy) => void) {
  const proxy = await startServiceProxy(
    harness.sandbox.baseUrl,
    (method, url) => method === 'GET' && url.startsWith('/v1/pipelines?'),
  );
  setUp(proxy);
  const proxied = await startHandlerHarness({ sandbox: { ...harness.sandbox, baseUrl: proxy.url } });
  try {
    const opened = await modalOpenedBy(proxied, 'U0ADMIN', (triggerId) =>
      openStartBidModal(
        proxied.context,
        proxied.request({ userId: 'U0ADMIN', channelId: BIDS, kind: 'click' }),
        {
          triggerId,
          tenderId: TENDER_A,
        },
      ),
    );
    return { proxy, view: opened.view };
  } finally {
    await proxied.close();
    await proxy.stop();
  }
}

describe('stages that add up to more days than are left', () => {
  const today = () => new Date().toISOString().slice(0, 10);
  const question = (total: number, limit: string) =>
    `The stages add up to ${total.toLocaleString('en-GB')} days, but ${limit}. Press “Start the bid” again to keep them, or shorten the stages.`;

  it('are asked about once, against the target date (today and that day counted); a later date is not asked again', async () => {
    const [, , , , , , , tender] = await openTenders(harness, 8, [TENDER_A]);
    const opened = await openFor('U0ADMIN', tender?.id as string);
    const name = 'Handler test: stages past the target';
    // In two days: on or before the closing day (the tenders close more than two days ahead).
    const target = dayAfter(today(), 2);
    const stages = 'Qualify | 2\nWrite | 5';
    const [asked] = await submit('U0ADMIN', opened, valuesOf({ name, targetDate: target, stages }));
    expect(asked).toEqual({
      response_action: 'errors',
      errors: {
        [PipelineIds.stagesBlock]: question(
          7,
          `only 3 days are left up to the target date, ${formatDay(target)}, today and that day included`,
        ),
      },
    });
    expect(await bidsNamed(name)).toEqual([]);
    // Given a day more: taken, not asked about again.
    const later = dayAfter(target, 1);
    expect(await submit('U0ADMIN', opened, valuesOf({ name, targetDate: later, stages }))).toEqual([
      undefined,
    ]);
    const [made] = await bidsNamed(name);
    expect(
      (await bidNow(harness, made?.id as string)).stages.map((stage) => stage.expectedDurationDays),
    ).toEqual([2, 5]);
  });

  it('are asked about against the closing when there is no target date; stages that fit are not', async () => {
    const [, , , , , , , , tender] = await openTenders(harness, 9, [TENDER_A]);
    const opened = await openFor('U0ADMIN', tender?.id as string);
    const closing = tender?.closing as string;
    const left = daysUntil(closing, new Date()) + 1;
    const name = 'Handler test: stages past the closing';
    const [asked] = await submit(
      'U0ADMIN',
      opened,
      valuesOf({ name, targetDate: null, stages: `Everything | ${left + 1}` }),
    );
    expect(asked).toEqual({
      response_action: 'errors',
      errors: {
        [PipelineIds.stagesBlock]: question(
          left + 1,
          `only ${left.toLocaleString('en-GB')} days are left up to the day the tender closes (${formatClosing(tender?.deadline as string)}), today and that day included`,
        ),
      },
    });
    // As many days as are left: started at once.
    const fits = 'Handler test: stages that fit';
    expect(
      await submit(
        'U0ADMIN',
        opened,
        valuesOf({ name: fits, targetDate: null, stages: `Everything | ${left}` }),
      ),
    ).toEqual([undefined]);
    expect(await bidsNamed(fits)).toHaveLength(1);
  });

  it('with a target after the closing: both asked at once, the stages against the closing', async () => {
    const [, , , , , , , , , tender] = await openTenders(harness, 10, [TENDER_A]);
    const opened = await openFor('U0ADMIN', tender?.id as string);
    const closing = tender?.closing as string;
    const deadline = tender?.deadline as string;
    const left = daysUntil(closing, new Date()) + 1;
    const late = dayAfter(closing, 5);
    const values = valuesOf({
      name: 'Handler test: late and long',
      targetDate: late,
      stages: `All | ${left + 2}`,
    });
    const [asked] = await submit('U0ADMIN', opened, values);
    expect(asked).toEqual({
      response_action: 'errors',
      errors: {
        [PipelineIds.targetBlock]: `${formatDay(late)} is after the tender closes (${formatClosing(deadline)}). Press “Start the bid” again to keep it, or pick an earlier date.`,
        [PipelineIds.stagesBlock]: question(
          left + 2,
          `only ${left.toLocaleString('en-GB')} days are left up to the day the tender closes (${formatClosing(deadline)}), today and that day included`,
        ),
      },
    });
    // One press answers both.
    expect(await submit('U0ADMIN', opened, values)).toEqual([undefined]);
  });

  it('a one-day stage with the target date today fits', async () => {
    const [, , , , , , , , , , tender] = await openTenders(harness, 11, [TENDER_A]);
    const opened = await openFor('U0ADMIN', tender?.id as string);
    const name = 'Handler test: submit today';
    expect(
      await submit('U0ADMIN', opened, valuesOf({ name, targetDate: today(), stages: 'Submit | 1' })),
    ).toEqual([undefined]);
    expect(await bidsNamed(name)).toHaveLength(1);
  });
});

describe('the spare form of a double click on Start a bid', () => {
  it('once its twin started the bid, says so naming that bid, before any question', async () => {
    const [, , , , , , , , , , , , tender] = await openTenders(harness, 13, [TENDER_A]);
    // Two forms from one double click share one key.
    const first = await openFor('U0ADMIN', tender?.id as string);
    const spare = await openFor('U0ADMIN', tender?.id as string);
    const name = 'Handler test: the first of twins';
    expect(await submit('U0ADMIN', first, valuesOf({ name }))).toEqual([undefined]);
    const [made] = await bidsNamed(name);
    const reference = (
      await harness.context.store.bidReferenceNumbers(harness.slack.teamId, [made?.id as string])
    ).get(made?.id as string);
    // Other details, stages far longer than the time left: refused at once, nothing asked.
    const [answer] = await submit(
      'U0ADMIN',
      spare,
      valuesOf({ name: 'Handler test: the spare twin', stages: 'All | 3650' }),
    );
    expect(answer).toEqual({
      response_action: 'errors',
      errors: {
        [PipelineIds.nameBlock]: `This click already started BID-${reference} (a double click opens the form twice). To start another bid, copy what you typed, close this form and click “Start a bid” again.`,
      },
    });
    expect(await bidsNamed('Handler test: the spare twin')).toEqual([]);
  });
});

describe('a target submission date after the tender closes', () => {
  it('is asked about once (the form names the deadline with its time), then taken and flagged on the card', async () => {
    const [, , , tender] = await openTenders(harness, 4, [TENDER_A]);
    const opened = await openFor('U0ADMIN', tender?.id as string);
    const closing = tender?.closing as string;
    const deadline = tender?.deadline as string;
    expect(formatClosing(deadline)).toMatch(/^\d{1,2} \w+ \d{4}(, \d\d:\d\d UTC)?$/);
    expect(textOf(opened.view)).toContain(`The tender closes ${formatClosing(deadline)}.`);
    const name = 'Handler test: late target';
    const late = dayAfter(closing, 27);
    // A bid aims to be in by the deadline: a date after it is asked about, nothing is started yet.
    const [asked] = await submit('U0ADMIN', opened, valuesOf({ name, targetDate: late }));
    expect(asked).toEqual({
      response_action: 'errors',
      errors: {
        [PipelineIds.targetBlock]: `${formatDay(late)} is after the tender closes (${formatClosing(deadline)}). Press “Start the bid” again to keep it, or pick an earlier date.`,
      },
    });
    expect(await bidsNamed(name)).toEqual([]);
    // Submitted again with the same date: taken, and the card flags it.
    expect(await submit('U0ADMIN', opened, valuesOf({ name, targetDate: late }))).toEqual([undefined]);
    const [made] = await bidsNamed(name);
    expect(made?.targetSubmissionDate).toBe(late);
    expect(textOf(cardsOf(harness, BIDS, made?.id as string)[0])).toContain(
      `:warning: after the tender closes (${formatDay(closing)})`,
    );
  });

  it('is taken at once from a form opened before forms carried the deadline (no question it cannot ask)', async () => {
    const [, , , , , , tender] = await openTenders(harness, 7, [TENDER_A]);
    const opened = await openFor('U0ADMIN', tender?.id as string);
    const meta = JSON.parse(opened.view.private_metadata as string) as Record<string, unknown>;
    expect(meta.d).toBe(new Date(tender?.deadline as string).toISOString());
    const older = JSON.stringify({ ...meta, d: undefined });
    const name = 'Handler test: late target, older form';
    const late = dayAfter(tender?.closing as string, 3);
    expect(await submit('U0ADMIN', opened, valuesOf({ name, targetDate: late }), older)).toEqual([undefined]);
    expect((await bidsNamed(name))[0]?.targetSubmissionDate).toBe(late);
  });

  it('the closing day itself is taken at once', async () => {
    const [, , , , tender] = await openTenders(harness, 5, [TENDER_A]);
    const opened = await openFor('U0ADMIN', tender?.id as string);
    const name = 'Handler test: target on the closing day';
    expect(
      await submit('U0ADMIN', opened, valuesOf({ name, targetDate: tender?.closing as string })),
    ).toEqual([undefined]);
    const [made] = await bidsNamed(name);
    expect(made?.targetSubmissionDate).toBe(tender?.closing);
    // In time: its card has no flag.
    const card = textOf(cardsOf(harness, BIDS, made?.id as string)[0]);
    expect(card).toContain(name);
    expect(card).not.toContain('after the tender closes');
  });
});

describe('an awarded tender', () => {
  it('whose award date is still to come is not said to be "already" awarded', async () => {
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    const awarded = await client.tenders.search({ status: 'awarded', limit: 100 });
    const ahead = awarded.data.find(
      (tender) => tender.awardedAt && Date.parse(tender.awardedAt) > Date.now(),
    );
    if (!ahead?.awardedAt) throw new Error('no awarded tender with its award date to come');
    const shown = textOf((await openFor('U0ADMIN', ahead.id)).view);
    expect(shown).toContain(
      `This tender is listed as awarded, with an award date still to come (${formatDay(ahead.awardedAt.slice(0, 10))})`,
    );
    expect(shown).not.toContain('already');
    expect(shown).toContain('You can still start the bid');
  });
});
