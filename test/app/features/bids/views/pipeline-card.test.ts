import { describe, expect, it } from 'vitest';
import { checkStartBid, parseStageLines } from '../../../../../src/app/features/bids/pipeline-submissions.ts';
import {
  type BidListFilter,
  pipelineCard,
  pipelinesListMessage,
} from '../../../../../src/app/features/bids/views/pipeline-card.ts';
import {
  DEFAULT_STAGE_TEMPLATE,
  stageNotesModal,
  startBidModal,
} from '../../../../../src/app/features/bids/views/pipeline-modals.ts';
import { homeView } from '../../../../../src/app/features/home/views/home-view.ts';
import { TenderIds } from '../../../../../src/app/shared/ids.ts';
import { decode, type StateKeeper } from '../../../../../src/app/shared/values/codec.ts';
import { countdown, progressBar } from '../../../../../src/app/shared/views/bid-parts.ts';
import { blockKitProblems, viewProblems } from '../../../../../src/app/shared/views/block-kit-limits.ts';
import { mrkdwn, text } from '../../../../../src/app/shared/views/mrkdwn.ts';
import type { Pipeline, PipelineListItem } from '../../../../../src/contract/schemas.ts';
import { readerTime } from '../../../../support/slack-dates.ts';

const NOW = new Date('2026-11-22T10:00:00Z');

/** `/tender pipelines` with nothing typed: the current bids. */
const ACTIVE: BidListFilter = { words: '', archived: 'active' };

/** The bot store's part the codec uses, in memory. */
function memoryKeeper(): StateKeeper & { size: () => number } {
  const kept = new Map<string, string>();
  return {
    saveState: async (token, json) => {
      kept.set(token, json);
    },
    loadState: async (token) => kept.get(token) ?? null,
    size: () => kept.size,
  };
}

function pipeline(overrides: Partial<Pipeline> = {}): Pipeline {
  return {
    id: 'pl-1',
    name: 'Hospital cleaning',
    summary: null,
    status: 'bidding',
    targetSubmissionDate: '2026-11-20',
    tenderId: 'ocds-1',
    owner: { id: 'usr-bob', name: 'Bob' },
    archived: false,
    createdAt: '2026-11-01T00:00:00Z',
    updatedAt: '2026-11-02T00:00:00Z',
    stages: ['Qualify', 'Draft', 'Price', 'Review', 'Submit'].map((name, index) => ({
      id: `st-${index}`,
      position: index,
      name,
      description: null,
      expectedDurationDays: 2,
      status: index < 3 ? 'completed' : 'pending',
      notes: null,
      dueDate: null,
    })),
    ...overrides,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON read back in tests.
type Json = any;

describe('the pipeline card', () => {
  it('says a bid without stages has none, not "0/0 stages done"', async () => {
    const card = await pipelineCard(pipeline({ stages: [] }), memoryKeeper(), NOW, { reference: 'BID-3' });
    expect(card.text).toMatch(/, no stages$/);
    expect(JSON.stringify(card.blocks)).toContain('No stages');
    expect(JSON.stringify(card)).not.toContain('0/0');
  });

  it('draws the progress bar and says an overdue target plainly', () => {
    expect(progressBar(3, 5)).toBe('▰▰▰▱▱ 3/5 done');
    expect(progressBar(0, 0)).toBe('No stages');
    expect(progressBar(7, 40)).toBe('▰▰▱▱▱▱▱▱▱▱ 7/40 done');
    expect(countdown('2026-11-20', NOW)).toBe('20 Nov 2026 · overdue by 2 days');
    expect(countdown('2026-11-22', NOW)).toBe('22 Nov 2026 · due today');
    expect(countdown('2026-11-23', NOW)).toBe('23 Nov 2026 · due tomorrow');
    expect(countdown(null, NOW)).toBe('no target date set');
    // Far off, in months and then years: the date beside it says the day.
    expect(countdown('2027-01-21', NOW)).toBe('21 Jan 2027 · in 60 days');
    expect(countdown('2027-01-22', NOW)).toBe('22 Jan 2027 · in 2 months');
    expect(countdown('2027-11-22', NOW)).toBe('22 Nov 2027 · in 12 months');
    expect(countdown('2029-11-22', NOW)).toBe('22 Nov 2029 · in 3 years');
    expect(countdown('2026-09-01', NOW)).toBe('1 Sept 2026 · overdue by 3 months');
    // Rounded to the nearest, so the count never goes down as the days go up.
    expect(countdown('2028-11-21', NOW)).toBe('21 Nov 2028 · in 24 months');
    expect(countdown('2028-11-22', NOW)).toBe('22 Nov 2028 · in 2 years');
    // Not a day: said as it is, with no count.
    expect(countdown('2026-13-45', NOW)).not.toMatch(/NaN|overdue|in /);
  });

  it('says a stage’s expected length, but not a length of 0 days', async () => {
    const [first] = pipeline().stages;
    if (!first) throw new Error('no stage');
    const lines = async (days: number | null) =>
      JSON.stringify(
        (
          await pipelineCard(
            pipeline({ stages: [{ ...first, expectedDurationDays: days }] }),
            memoryKeeper(),
            NOW,
            { reference: 'BID-1' },
          )
        ).blocks,
      );
    expect(await lines(3)).toContain('about 3 days');
    expect(await lines(1)).toContain('about 1 day');
    expect(await lines(0)).not.toContain('about');
    expect(await lines(null)).not.toContain('about');
  });

  it('dates a bid past its submission without due or overdue: a won bid is not overdue', async () => {
    for (const status of ['submitted', 'won', 'lost', 'no_bid'] as const)
      expect(countdown('2020-01-01', NOW, { status })).toBe('1 Jan 2020');
    expect(countdown('2020-01-01', NOW, { status: 'bidding' })).toBe('1 Jan 2020 · overdue by 7 years');
    // An archived bid is worked on no more: its date is said, not counted.
    expect(countdown('2020-01-01', NOW, { status: 'bidding', archived: true })).toBe('1 Jan 2020');
    // Its stages too: one past its due day, one due after the tender closes.
    const stages = pipeline().stages.map((each, index) =>
      index === 3
        ? { ...each, dueDate: '2020-01-01' }
        : index === 4
          ? { ...each, dueDate: '2099-01-01' }
          : each,
    );
    const archived = JSON.stringify(
      (
        await pipelineCard(pipeline({ archived: true, stages }), memoryKeeper(), NOW, {
          reference: 'BID-12',
          tenderDeadline: '2027-01-01T12:00:00Z',
        })
      ).blocks,
    );
    expect(archived).toContain('due 1 Jan 2020');
    expect(archived).toContain('*Target submission* 20 Nov 2026');
    expect(archived).not.toMatch(/overdue by|:warning:/);
    const won = JSON.stringify(
      (await pipelineCard(pipeline({ status: 'won' }), memoryKeeper(), NOW, { reference: 'BID-12' })).blocks,
    );
    expect(won).toContain('*Target submission* 20 Nov 2026');
    expect(won).not.toMatch(/overdue|:warning:/);
    const late = JSON.stringify(
      (await pipelineCard(pipeline(), memoryKeeper(), NOW, { reference: 'BID-12' })).blocks,
    );
    expect(late).toContain('20 Nov 2026 · overdue by 2 days :warning:');
  });

  it('has a section per stage with its status select, and a status select without Submitted', async () => {
    const card = await pipelineCard(pipeline(), memoryKeeper(), NOW, { reference: 'BID-12' });
    const text = JSON.stringify(card.blocks);
    expect(text).toContain('▰▰▰▱▱ 3/5 done');
    expect(text).toContain('overdue by 2 days');
    const stageSelects = card.blocks
      .map((block: Json) => block.accessory)
      .filter((element: Json) => element?.action_id?.startsWith('pipeline/stage_status/'));
    expect(stageSelects.length).toBe(5);
    expect(stageSelects.map((select: Json) => select.initial_option.text.text)).toEqual([
      'Completed',
      'Completed',
      'Completed',
      'Pending',
      'Pending',
    ]);
    const statusSelect = (card.blocks[1] as Json).accessory;
    const statuses = statusSelect.options.map((option: Json) => JSON.parse(option.value).v);
    expect(statuses.length).toBe(7);
    expect(statuses).not.toContain('submitted');
    expect(statusSelect.initial_option.text.text).toBe('Bidding');
    expect(blockKitProblems(card.blocks, 'message')).toEqual([]);
  });

  it('flags a target and stage due dates after the tender closes, beside each date, until done or past submission', async () => {
    const planned = pipeline({
      targetSubmissionDate: '2027-01-15',
      stages: [
        ['Draft response', 'pending', '2027-01-15'],
        ['Pricing', 'in_progress', '2026-12-19'],
        ['Review', 'completed', '2027-01-20'],
      ].map(([name, status, dueDate], index) => ({
        id: `st-${index}`,
        position: index,
        name: name as string,
        description: null,
        expectedDurationDays: null,
        status: status as Pipeline['stages'][number]['status'],
        notes: null,
        dueDate: dueDate as string,
      })),
    });
    const known = { reference: 'BID-3', tenderDeadline: '2026-12-19T12:00:00Z' };
    const lines = (card: { blocks: unknown[] }) =>
      (card.blocks as Json[]).map((block) => block.text?.text ?? '').filter(Boolean);
    const drawn = lines(await pipelineCard(planned, memoryKeeper(), NOW, known));
    const flag = ':warning: after the tender closes (19 Dec 2026)';
    expect(drawn.find((line) => line.includes('*Target submission*'))).toContain(
      `*Target submission* 15 Jan 2027 · in 54 days ${flag}`,
    );
    expect(drawn.find((line) => line.includes('Draft response'))).toContain(`due 15 Jan 2027 ${flag}`);
    // The deadline's own day is in time; a completed stage has nothing left to miss.
    expect(drawn.find((line) => line.includes('Pricing'))).not.toContain(flag);
    expect(drawn.find((line) => line.includes('Review'))).not.toContain(flag);
    // Past its submission, a deadline already passed, or a tender not read: nothing flagged.
    for (const [bid, deadline] of [
      [{ ...planned, status: 'won' as const }, known.tenderDeadline],
      [planned, '2026-11-01T12:00:00Z'],
      [planned, null],
    ] as const)
      expect(
        JSON.stringify(
          (await pipelineCard(bid, memoryKeeper(), NOW, { reference: 'BID-3', tenderDeadline: deadline }))
            .blocks,
        ),
      ).not.toContain('after the tender closes');
  });

  it('says when the tender closes while the bid is still to be submitted, and names the tender by its title', async () => {
    const known = {
      reference: 'BID-3',
      tenderDeadline: '2026-12-19T12:00:00Z',
      tenderTitle: 'Hospital <cleaning> & *laundry*',
    };
    const text = (card: { blocks: unknown[] }) => JSON.stringify(card.blocks);
    const drawn = text(await pipelineCard(pipeline(), memoryKeeper(), NOW, known));
    expect(drawn).toContain(
      `*Tender closes* ${readerTime(known.tenderDeadline, '19 Dec 2026, 12:00 UTC')} · in 27 days`,
    );
    // The title as text (escaped, its markup neutralised), beside the id people copy.
    expect(drawn).toMatch(/ · tender “Hospital &lt;cleaning&gt; &amp; [^”]*laundry[^”]*” `ocds-1` · /);
    expect(drawn).not.toContain('*laundry*');
    // Closing today, tomorrow, months away.
    for (const [deadline, when] of [
      [
        '2026-11-22T10:50:00Z',
        `${readerTime('2026-11-22T10:50:00Z', '22 Nov 2026, 10:50 UTC')} · in 50 minutes`,
      ],
      ['2026-11-22T11:30:00Z', `${readerTime('2026-11-22T11:30:00Z', '22 Nov 2026, 11:30 UTC')} · in 1 hour`],
      [
        '2026-11-22T17:00:00Z',
        `${readerTime('2026-11-22T17:00:00Z', '22 Nov 2026, 17:00 UTC')} · in 7 hours`,
      ],
      // A deadline given as a day stays that day, whoever reads it.
      ['2026-11-23T00:00:00Z', '23 Nov 2026 · in 14 hours'],
      // A time within two days in hours, whichever the reader's calendar day.
      [
        '2026-11-23T12:00:00Z',
        `${readerTime('2026-11-23T12:00:00Z', '23 Nov 2026, 12:00 UTC')} · in 26 hours`,
      ],
      ['2026-11-24T12:00:00Z', `${readerTime('2026-11-24T12:00:00Z', '24 Nov 2026, 12:00 UTC')} · in 2 days`],
      [
        '2027-03-01T12:00:00Z',
        `${readerTime('2027-03-01T12:00:00Z', '1 Mar 2027, 12:00 UTC')} · in 3 months`,
      ],
    ] as const)
      expect(
        text(await pipelineCard(pipeline(), memoryKeeper(), NOW, { ...known, tenderDeadline: deadline })),
      ).toContain(`*Tender closes* ${when}`);
    // Submitted or won, a deadline passed, or a tender not read: no closing line; no title read, the id alone.
    for (const [bid, deadline] of [
      [pipeline({ status: 'submitted' }), known.tenderDeadline],
      [pipeline({ status: 'won' }), known.tenderDeadline],
      [pipeline(), '2026-11-01T12:00:00Z'],
      [pipeline(), null],
    ] as const)
      expect(
        text(await pipelineCard(bid, memoryKeeper(), NOW, { reference: 'BID-3', tenderDeadline: deadline })),
      ).not.toContain('Tender closes');
    expect(text(await pipelineCard(pipeline(), memoryKeeper(), NOW, { reference: 'BID-3' }))).toContain(
      ' · tender `ocds-1` · ',
    );
    // "Open the tender" shows it in full to whoever presses (the panels' Open does the same).
    const actions = (await pipelineCard(pipeline(), memoryKeeper(), NOW, { reference: 'BID-3' })).blocks.find(
      (block) => (block as Json).block_id === 'pipeline:actions',
    ) as Json;
    expect(actions.elements).toContainEqual(
      expect.objectContaining({
        action_id: TenderIds.show,
        value: 'ocds-1',
        text: expect.objectContaining({ text: 'Open the tender' }),
      }),
    );
    const noTender = (
      await pipelineCard(pipeline({ tenderId: null }), memoryKeeper(), NOW, { reference: 'BID-3' })
    ).blocks;
    expect(JSON.stringify(noTender)).not.toContain(TenderIds.show);
    // A title on one line; one of spaces only is no title.
    const lines = (title: string) =>
      pipelineCard(pipeline(), memoryKeeper(), NOW, { reference: 'BID-3', tenderTitle: title }).then(text);
    expect(await lines('Roads\n\n  and\tbridges')).toContain('tender “Roads and bridges” `ocds-1`');
    expect(await lines('   \n ')).toContain(' · tender `ocds-1` · ');
  });

  it('flags a stage due after the bid’s own target submission, while the bid is still to be submitted', async () => {
    const [first] = pipeline().stages;
    if (!first) throw new Error('no stage');
    const bid = (overrides: Partial<Pipeline>) =>
      pipeline({
        targetSubmissionDate: '2026-12-01',
        stages: [
          { ...first, id: 'late', name: 'Pricing', status: 'pending', dueDate: '2026-12-05' },
          { ...first, id: 'done', name: 'Review', position: 1, status: 'completed', dueDate: '2026-12-05' },
          { ...first, id: 'closing', name: 'Present', position: 2, status: 'pending', dueDate: '2026-12-20' },
          { ...first, id: 'early', name: 'Qualify', position: 3, status: 'pending', dueDate: '2026-11-30' },
        ],
        ...overrides,
      });
    const lines = async (overrides: Partial<Pipeline>) =>
      (
        (
          await pipelineCard(bid(overrides), memoryKeeper(), NOW, {
            reference: 'BID-5',
            tenderDeadline: '2026-12-19T12:00:00Z',
          })
        ).blocks as Json[]
      )
        .map((block) => block.text?.text ?? '')
        .filter(Boolean);
    const flag = ':warning: after the target submission (1 Dec 2026)';
    const drawn = await lines({});
    expect(drawn.find((line) => line.includes('Pricing'))).toContain(`due 5 Dec 2026 ${flag}`);
    // Done, before the target, or after the tender closes (that flag says more): no target flag.
    expect(drawn.find((line) => line.includes('Review'))).not.toContain(flag);
    expect(drawn.find((line) => line.includes('Qualify'))).not.toContain(flag);
    expect(drawn.find((line) => line.includes('Present'))).toContain('after the tender closes (19 Dec 2026)');
    expect(drawn.find((line) => line.includes('Present'))).not.toContain(flag);
    // Submitted: the target is history.
    expect((await lines({ status: 'submitted' })).join('\n')).not.toContain(flag);
  });

  it('an archived bid is read only, with Restore', async () => {
    const card = await pipelineCard(pipeline({ archived: true }), memoryKeeper(), NOW, {
      reference: 'BID-12',
    });
    const text = JSON.stringify(card.blocks);
    expect(text).toContain('pipeline/restore');
    expect(text).not.toContain('pipeline/archive');
    expect(text).not.toContain('static_select');
  });

  it('fits one message with 50 long stages and long notes: the rest are listed with the command', async () => {
    const big = pipeline({
      summary: 'S'.repeat(5000),
      stages: Array.from({ length: 50 }, (_, index) => ({
        id: `stage-${index}-${'x'.repeat(30)}`,
        position: index,
        name: `Stage ${index} <b> ${'n'.repeat(190)}`,
        description: null,
        expectedDurationDays: index,
        status: 'pending' as const,
        notes: 'N'.repeat(5000),
        dueDate: '2027-01-01',
      })),
    });
    const card = await pipelineCard(big, memoryKeeper(), NOW, { reference: 'BID-12' });
    expect(card.blocks.length).toBeGreaterThan(5);
    expect(blockKitProblems(card.blocks, 'message')).toEqual([]);
    expect(JSON.stringify(card.blocks)).toContain('Change these with');
  });

  it('an id too long for an option is kept in the store under a token, and reads back', async () => {
    const keeper = memoryKeeper();
    const longId = `pl-${'y'.repeat(200)}`;
    const card = await pipelineCard(pipeline({ id: longId }), keeper, NOW, { reference: 'BID-12' });
    expect(keeper.size()).toBeGreaterThan(0);
    expect(blockKitProblems(card.blocks, 'message')).toEqual([]);
    const select = (card.blocks as Json[]).find(
      (block) => block.accessory?.action_id === 'pipeline/stage_status/1',
    ).accessory;
    const option = select.options[0].value;
    expect(option.length).toBeLessThanOrEqual(150);
    expect(await decode('stageStatusOption', option, keeper, NOW)).toEqual({
      p: longId,
      s: 'st-0',
      v: 'pending',
    });
  });

  it('lists bids with Post in channel, within limits', async () => {
    const item: PipelineListItem & { reference: string } = {
      ...pipeline(),
      stageCounts: { pending: 2, in_progress: 0, blocked: 0, completed: 3 },
      reference: 'BID-12',
    } as PipelineListItem & { reference: string };
    const message = await pipelinesListMessage([item], 1, ACTIVE, memoryKeeper(), NOW);
    expect(JSON.stringify(message.blocks)).toContain('Post in channel');
    expect(JSON.stringify(message.blocks)).toContain('▰▰▰▱▱ 3/5 done');
    // People see the bid's reference; its id stays in the button's value only.
    expect(JSON.stringify(message.blocks.map((block) => ('text' in block ? block.text : null)))).toContain(
      '`BID-12`',
    );
    expect(
      JSON.stringify(message.blocks.map((block) => ('text' in block ? block.text : null))),
    ).not.toContain(item.id);
    expect(blockKitProblems(message.blocks, 'message')).toEqual([]);
  });

  it('pages a long list: the range it shows, and Previous and Next carrying what was typed', async () => {
    const item = (index: number) =>
      ({
        ...pipeline(),
        id: `p-${index}`,
        stageCounts: { pending: 1, in_progress: 0, blocked: 0, completed: 0 },
        reference: `BID-${index}`,
      }) as PipelineListItem & { reference: string };
    const page = Array.from({ length: 20 }, (_, index) => item(20 + index));
    const message = await pipelinesListMessage(page, 45, { ...ACTIVE, words: 'roads' }, memoryKeeper(), NOW, {
      offset: 20,
      typed: 'roads',
      pageSize: 20,
    });
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('21–40 of 45');
    const paging = message.blocks.at(-1) as { elements: { action_id: string; value: string }[] };
    expect(paging.elements.map((element) => [element.action_id, JSON.parse(element.value)])).toEqual([
      ['list/previous', { l: 'pipelines', t: 'roads', o: 0 }],
      ['list/next', { l: 'pipelines', t: 'roads', o: 40 }],
    ]);
    expect(blockKitProblems(message.blocks, 'message')).toEqual([]);
    // The last page has no Next; a one-page list has no paging at all.
    const last = await pipelinesListMessage(page.slice(0, 5), 45, ACTIVE, memoryKeeper(), NOW, {
      offset: 40,
      typed: '',
      pageSize: 20,
    });
    expect(JSON.stringify(last.blocks)).not.toContain('list/next');
    const single = await pipelinesListMessage([item(1)], 1, ACTIVE, memoryKeeper(), NOW);
    expect(JSON.stringify(single.blocks)).not.toContain('list/');
  });
});

describe('the modals and the Home view', () => {
  it('the start-a-bid and notes modals are within Slack’s limits, even with everything at its longest', () => {
    const modal = startBidModal({
      privateMetadata: 'm'.repeat(3000),
      tenderTitle: 'T'.repeat(5000),
      problem: text('P'.repeat(3000)),
      fields: {
        name: 'n'.repeat(500),
        summary: 's'.repeat(6000),
        targetDate: '2030-01-01',
        stages: 'x'.repeat(5000),
      },
    });
    expect(viewProblems(modal)).toEqual([]);
    const notes = stageNotesModal({
      privateMetadata: 'm',
      pipelineName: 'p'.repeat(500),
      stage: { name: 's'.repeat(500) },
      notes: 'n'.repeat(6000),
      dueDate: null,
    });
    expect(viewProblems(notes)).toEqual([]);
  });

  it('the Home view holds 100 blocks at most with every list full', () => {
    const items = Array.from({ length: 50 }, () => ({
      ...pipeline(),
      stageCounts: { pending: 1, in_progress: 1, blocked: 1, completed: 1 },
    })) as PipelineListItem[];
    const view = homeView({
      connection: mrkdwn`Connected`,
      canConnect: true,
      now: NOW,
      pipelines: { items, total: 400 },
      bookmarks: { problem: mrkdwn`The service failed to answer.` },
      savedSearches: { items: [], total: 0 },
    });
    expect(view.blocks.length).toBeGreaterThan(10);
    expect(viewProblems(view)).toEqual([]);
    expect(JSON.stringify(view.blocks)).toContain('10 of 400');
    // Dated as the cards date them, not 2026-11-20.
    expect(JSON.stringify(view.blocks)).toContain('target 20 Nov 2026 · overdue by 2 days');
    expect(JSON.stringify(view.blocks)).not.toContain('2026-11-20');
  });

  it('an empty list of bids says the command that looks among every bid, with what was typed', async () => {
    const page = { offset: 0, typed: 'zzzz', pageSize: 20 };
    const none = JSON.stringify(
      (await pipelinesListMessage([], 0, { ...ACTIVE, words: 'zzzz' }, memoryKeeper(), NOW, page)).blocks,
    );
    expect(none).toContain('`/tender pipelines zzzz all`');
    // Archived/active give way to all; ALL in any case is all already; a backtick could not be shown.
    const archived = { ...page, typed: 'zzzz archived' };
    expect(
      JSON.stringify(
        (
          await pipelinesListMessage(
            [],
            0,
            { words: 'zzzz', archived: 'archived' },
            memoryKeeper(),
            NOW,
            archived,
          )
        ).blocks,
      ),
    ).toContain('`/tender pipelines zzzz all`');
    const tick = { ...page, typed: 'zz`zz' };
    const noCommand = JSON.stringify(
      (await pipelinesListMessage([], 0, { ...ACTIVE, words: 'zz`zz' }, memoryKeeper(), NOW, tick)).blocks,
    );
    expect(noCommand).toContain('No current bids match');
    expect(noCommand).not.toContain('/tender pipelines');
    const all = { ...page, typed: 'zzzz ALL' };
    const noneAtAll = JSON.stringify(
      (await pipelinesListMessage([], 0, { words: 'zzzz', archived: 'all' }, memoryKeeper(), NOW, all))
        .blocks,
    );
    expect(noneAtAll).toContain('No bids, current or archived, match “zzzz”.');
    expect(noneAtAll).not.toContain('/tender pipelines');
  });
});

describe('the list of bids, by its filters', () => {
  const item = {
    ...pipeline(),
    stageCounts: { pending: 1, in_progress: 0, blocked: 0, completed: 0 },
    reference: 'BID-4',
  } as PipelineListItem & { reference: string };
  const said = async (filter: BidListFilter, items: (typeof item)[] = []) => {
    const message = await pipelinesListMessage(items, items.length, filter, memoryKeeper(), NOW);
    return { text: message.text, first: (message.blocks[0] as Json).text.text as string };
  };

  it('an empty list names what is missing, never a filter as if it were a searched word', async () => {
    const archived = await said({ words: '', archived: 'archived' });
    expect(archived.text).toBe('No archived bids.');
    expect(archived.first).toBe(
      'No archived bids. Look among every bid, active ones too: `/tender pipelines all`.',
    );
    expect((await said(ACTIVE)).text).toBe('No current bids.');
    expect((await said({ words: '', archived: 'all' })).text).toBe('No bids, current or archived.');
    expect((await said({ ...ACTIVE, status: 'no_bid' })).text).toBe(
      'No current bids with the status No bid.',
    );
    expect((await said({ ...ACTIVE, status: 'on_hold' })).text).toBe(
      'No current bids with the status On hold.',
    );
    expect((await said({ words: 'roads', archived: 'archived' })).text).toBe(
      'No archived bids match “roads”.',
    );
    expect((await said({ words: 'roads', status: 'won', archived: 'all' })).text).toBe(
      'No bids with the status Won, current or archived, match “roads”.',
    );
  });

  it('no bids won, lost, submitted or not bid for: where to look next, never “Start one”', async () => {
    const typed = { offset: 0, typed: 'status:won', pageSize: 20 };
    for (const status of ['won', 'lost', 'submitted', 'no_bid'] as const) {
      const message = await pipelinesListMessage([], 0, { ...ACTIVE, status }, memoryKeeper(), NOW, {
        ...typed,
        typed: `status:${status}`,
      });
      const first = (message.blocks[0] as Json).text.text as string;
      expect(first, status).toContain(
        `Finished bids are often archived; look among every bid: \`/tender pipelines status:${status} all\`.`,
      );
      expect(first, status).not.toContain('Start one');
    }
    // Bids still being worked on may simply not have been started.
    const drafting = await pipelinesListMessage(
      [],
      0,
      { ...ACTIVE, status: 'bidding' },
      memoryKeeper(),
      NOW,
      {
        ...typed,
        typed: 'status:bidding',
      },
    );
    expect((drafting.blocks[0] as Json).text.text).toContain('Start one with “Start a bid”');
  });

  it('a list’s heading says its filters the same way', async () => {
    expect((await said({ words: '', archived: 'archived' }, [item])).text).toBe('Archived bids: 1');
    expect((await said({ words: '', archived: 'all' }, [item])).text).toBe('All bids: 1');
    expect((await said({ words: 'roads', status: 'on_hold', archived: 'active' }, [item])).first).toContain(
      '*Current bids with the status On hold matching “roads”*',
    );
  });
});

describe('stage lines typed in the modal', () => {
  it('reads `name | days`, skips empty lines, and names the line that is wrong', () => {
    expect(parseStageLines(DEFAULT_STAGE_TEMPLATE)).toMatchObject({ stages: expect.any(Array) });
    expect(parseStageLines('Qualify | 2\n\n  Draft  \nA | b | 3')).toEqual({
      stages: [
        { name: 'Qualify', expectedDurationDays: 2 },
        { name: 'Draft', expectedDurationDays: null },
        { name: 'A | b', expectedDurationDays: 3 },
      ],
    });
    expect(parseStageLines('Qualify | two')).toEqual({ problem: expect.stringContaining('Line 1') });
    expect(parseStageLines('| 3')).toEqual({ problem: expect.stringContaining('no stage name') });
    expect(parseStageLines('x | 9999')).toEqual({ problem: expect.stringContaining('3,650') });
    // Lengths as people write them: days with or without the word, weeks as seven days.
    expect(parseStageLines('A | 3 days\nB | 1 day\nC | 4d\nD | 2w\nE | 1 week\nF | 2 Weeks')).toEqual({
      stages: [
        { name: 'A', expectedDurationDays: 3 },
        { name: 'B', expectedDurationDays: 1 },
        { name: 'C', expectedDurationDays: 4 },
        { name: 'D', expectedDurationDays: 14 },
        { name: 'E', expectedDurationDays: 7 },
        { name: 'F', expectedDurationDays: 14 },
      ],
    });
    expect(parseStageLines('x | 3 months')).toEqual({
      problem: expect.stringContaining('whole number of days'),
    });
    expect(parseStageLines('x | 600w')).toEqual({ problem: expect.stringContaining('3,650') });
    expect(parseStageLines(Array.from({ length: 51 }, (_, i) => `S${i}`).join('\n'))).toEqual({
      problem: expect.stringContaining('50 stages'),
    });
    const checked = checkStartBid({ name: ' ', summary: '', targetDate: '01/02/2030', stages: 'a | b' });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(Object.keys(checked.errors).length).toBe(3);
  });

  it('says every wrong line at once, and refuses two stages of one name', () => {
    const problems = parseStageLines(
      'Qualify | two\nPricing\n| 3\npricing | 2\nSubmit | 9999\nPrice | 99999',
    );
    expect(problems).toEqual({
      problem:
        'Line 3 has no stage name before the bar. Line 4: “pricing” is the name of line 2 too; give each stage its own name. Line 1: after the bar, give the stage’s length as a whole number of days, such as “Draft response | 5”. Lines 5 and 6: a stage lasts 3,650 days at most.',
    });
    // The same mistake on many lines is one sentence naming them, not the sentence again for each.
    const many = parseStageLines(Array.from({ length: 8 }, (_, i) => `S${i} | x`).join('\n'));
    expect(many).toEqual({
      problem:
        'Lines 1, 2, 3, 4, 5, 6, 7 and 8: after the bar, give the stage’s length as a whole number of days, such as “Draft response | 5”.',
    });
    // A thousand wrong lines pasted: still one short sentence.
    const pasted = parseStageLines(Array.from({ length: 1000 }, (_, i) => `S${i} | x`).join('\n'));
    expect(pasted).toEqual({
      problem:
        'Lines 1, 2, 3, 4, 5, 6, 7, 8 and 992 more: after the bar, give the stage’s length as a whole number of days, such as “Draft response | 5”. A bid holds 50 stages at most; there are 1,000.',
    });
    const distinct = parseStageLines(Array.from({ length: 8 }, () => '| 3').join('\n'));
    expect(distinct).toEqual({ problem: expect.stringMatching(/Line 5 .* And 3 more problems\.$/) });
  });
});
