import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startedByPhrase } from '../../../../../src/app/features/bids/index.ts';
import { closedTenderSentence, notesOnCard } from '../../../../../src/app/features/bids/views/bid-people.ts';
import { pipelineCard } from '../../../../../src/app/features/bids/views/pipeline-card.ts';
import type { StateKeeper } from '../../../../../src/app/shared/values/codec.ts';
import { blockKitProblems } from '../../../../../src/app/shared/views/block-kit-limits.ts';
import type { Pipeline } from '../../../../../src/contract/schemas.ts';

/* A card keeps every stage's controls (long notes are cut), names who started the bid, and says closed tenders. */

const NOW = new Date('2026-11-22T10:00:00Z');

function memoryKeeper(): StateKeeper {
  const kept = new Map<string, string>();
  return {
    saveState: async (token, json) => {
      kept.set(token, json);
    },
    loadState: async (token) => kept.get(token) ?? null,
  };
}

/** A bid as the service gives it, with UUIDs for ids (the longest values the card carries). */
function bid(stageCount: number, notesOf: (index: number) => string | null): Pipeline {
  return {
    id: randomUUID(),
    name: 'Hospital cleaning',
    summary: 'S'.repeat(3000),
    status: 'bidding',
    targetSubmissionDate: '2027-01-20',
    tenderId: 'ocds-tbdemo-0000201',
    owner: { id: 'usr-carol', name: 'Carol Member' },
    archived: false,
    createdAt: '2026-11-01T00:00:00Z',
    updatedAt: '2026-11-02T00:00:00Z',
    stages: Array.from({ length: stageCount }, (_, index) => ({
      id: randomUUID(),
      position: index,
      name: `Stage ${index + 1} ${'n'.repeat(60)}`,
      description: null,
      expectedDurationDays: 2,
      status: 'pending' as const,
      notes: notesOf(index),
      dueDate: '2027-01-01',
    })),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON read back in tests.
type Json = any;
const selectsOf = (blocks: Json[]) =>
  blocks.filter((block) => block.accessory?.action_id?.startsWith('pipeline/stage_status/'));

describe('a bid card’s room', () => {
  it('notes of 3,000 characters on three of six stages: six status menus, each note cut with what is left', async () => {
    const card = await pipelineCard(
      bid(6, (index) => (index < 3 ? 'word '.repeat(600) : null)),
      memoryKeeper(),
      NOW,
      { reference: 'BID-3' },
    );
    expect(selectsOf(card.blocks)).toHaveLength(6);
    const text = JSON.stringify(card.blocks);
    expect(text.match(/more characters in Notes and due date/g)).toHaveLength(3);
    expect(text).toMatch(/… 2,[0-9]{3} more characters in Notes and due date/);
    expect(text).not.toContain('have no menus here');
    expect(blockKitProblems(card.blocks, 'message')).toEqual([]);
  });

  it('more stages than a message holds with their controls: says so, lists the rest with the command', async () => {
    const card = await pipelineCard(
      bid(40, () => 'x'.repeat(3000)),
      memoryKeeper(),
      NOW,
      { reference: 'BID-3' },
    );
    const shown = selectsOf(card.blocks).length;
    // A message's JSON (well under 12,000 characters) runs out before its 50 blocks do: with 3,000
    // characters of notes on every stage, three keep their controls beside the card's own lines.
    expect(shown).toBeGreaterThanOrEqual(3);
    expect(shown).toBeLessThan(40);
    const text = JSON.stringify(card.blocks);
    expect(text).toContain(`*Stages ${shown + 1} to 40 have no menus here:* a Slack message holds 50 blocks`);
    expect(text).toContain('Change these with');
    expect(text).toContain('/tender pipeline stage BID-3 &lt;number&gt; &lt;status&gt;');
    expect(blockKitProblems(card.blocks, 'message')).toEqual([]);
    // Eight stages, every one with 3,000 characters of notes, all keep their controls.
    const eight = await pipelineCard(
      { ...bid(8, () => 'y'.repeat(3000)), summary: null },
      memoryKeeper(),
      NOW,
      { reference: 'BID-3' },
    );
    expect(selectsOf(eight.blocks)).toHaveLength(8);
    expect(blockKitProblems(eight.blocks, 'message')).toEqual([]);
  });

  it('stages past the menus are listed with their due dates and warnings, as the stages above are', async () => {
    const many = bid(45, () => null);
    const stages = many.stages.map((stage, index) =>
      // Stage 44 is due after the tender closes (10 Jan 2027), the others on New Year's Day.
      index === 43
        ? { ...stage, name: 'Check TUPE list', dueDate: '2027-02-01' }
        : { ...stage, name: `Stage ${index + 1}` },
    );
    // With names as long as people write them (68 characters here), the warning still shows: the
    // plain dates give way first.
    const longNames = await pipelineCard(
      { ...many, stages: many.stages.map((stage, index) => (index === 43 ? (stages[43] ?? stage) : stage)) },
      memoryKeeper(),
      NOW,
      { reference: 'BID-3', tenderDeadline: '2027-01-10T05:30:00Z' },
    );
    const long = JSON.stringify(longNames.blocks);
    expect(long).toContain('have no menus here');
    expect(long).toMatch(/44\. Check TUPE list · Pending · due 1 Feb 2027 :warning: after the tender closes/);
    expect(blockKitProblems(longNames.blocks, 'message')).toEqual([]);
    const card = await pipelineCard({ ...many, stages }, memoryKeeper(), NOW, {
      reference: 'BID-3',
      tenderDeadline: '2027-01-10T05:30:00Z',
    });
    const text = JSON.stringify(card.blocks);
    expect(text).toContain('have no menus here');
    expect(text).toMatch(
      /44\. Check TUPE list · Pending · due 1 Feb 2027 :warning: after the tender closes \(10 Jan 2027\)/,
    );
    expect(blockKitProblems(card.blocks, 'message')).toEqual([]);
  });

  it('keeps every stage and every warning past the menus, however many are flagged and however long the names', async () => {
    for (const [count, nameOf, flaggedEvery] of [
      [42, (n: number) => `Stage ${n} & <review>`, 2],
      [45, (n: number) => `Stage ${n} ${'long name '.repeat(18)}`, 2],
      // Every stage flagged: more warnings than one section holds.
      [45, (n: number) => `Stage ${n}`, 1],
    ] as const) {
      const many = bid(count, () => null);
      // Every other stage due after the tender closes (10 Jan 2027); the rest in time.
      const stages = many.stages.map((stage, index) => ({
        ...stage,
        name: nameOf(index + 1),
        dueDate: index % flaggedEvery === 0 ? '2027-01-15' : '2027-01-05',
      }));
      const card = await pipelineCard({ ...many, stages }, memoryKeeper(), NOW, {
        reference: 'BID-3',
        tenderDeadline: '2027-01-10T05:30:00Z',
      });
      expect(blockKitProblems(card.blocks, 'message'), `${count}`).toEqual([]);
      const shown = selectsOf(card.blocks).length;
      const words = JSON.stringify(card.blocks);
      const list = words.slice(words.indexOf('have no menus here'));
      for (let number = shown + 1; number <= count; number++) {
        const line = new RegExp(`:white_circle: ${number}\\.[^\\\\]*`).exec(list)?.[0];
        expect(line, `stage ${number} of ${count}`).toBeDefined();
        if ((number - 1) % flaggedEvery === 0)
          expect(line, `stage ${number} of ${count}`).toContain('after the tender closes');
      }
    }
  });

  it('notes are cut at a word, never half an emoji, with the count of what is left', () => {
    expect(notesOnCard('short <b>', 600)).toBe('short &lt;b&gt;');
    // 799 characters; cut at the last space before 100, 99 shown.
    const cut = notesOnCard(`${'abc '.repeat(200)}`, 100);
    expect(cut).toMatch(/^(abc ){24}abc _… 700 more characters in Notes and due date_$/);
    expect(notesOnCard('😀'.repeat(10), 5)).not.toMatch(/[\uD800-\uDBFF]_?$/);
    expect(notesOnCard('long notes', 0)).toBe('_10 characters of notes in Notes and due date_');
  });

  it('names who started the bid beside the service’s owner where they differ', async () => {
    expect(startedByPhrase('Carol Member', undefined)).toBe('owner Carol Member');
    expect(startedByPhrase('Carol <Member>', { userId: 'U0MAX', ownKey: false })).toBe(
      'started by <@U0MAX> · owner in the service: Carol &lt;Member&gt;, who made the workspace’s key',
    );
    expect(startedByPhrase('Max Member', { userId: 'U0MAX', ownKey: true })).toBe(
      'started by <@U0MAX> (owner)',
    );
    const card = await pipelineCard(
      bid(2, () => null),
      memoryKeeper(),
      NOW,
      {
        reference: 'BID-3',
        starter: { userId: 'U0MAX', ownKey: false },
      },
    );
    expect(JSON.stringify(card.blocks)).toContain('started by <@U0MAX> · owner in the service: Carol Member');
  });

  it('says a tender is closed, awarded, cancelled or past its deadline; nothing for an open one', () => {
    const tender = (status: string, deadline: string | null, awardedAt: string | null = null) => ({
      status,
      deadline,
      awardedAt,
    });
    expect(closedTenderSentence(tender('open', '2027-01-01T12:00:00Z'), NOW)).toBeNull();
    expect(closedTenderSentence(tender('closed', '2025-01-03T12:00:00Z'), NOW)).toBe(
      'This tender is closed (its deadline was 3 Jan 2025): a bid on it can no longer be submitted to the buyer.',
    );
    expect(closedTenderSentence(tender('awarded', null), NOW)).toContain('has been awarded');
    expect(closedTenderSentence(tender('cancelled', null), NOW)).toContain('was cancelled');
    expect(closedTenderSentence(tender('open', '2026-11-01T00:00:00Z'), NOW)).toContain(
      'deadline has passed (1 Nov 2026)',
    );
  });

  it('an awarded tender is said by its award date: "was awarded on" one that has come, never "already" for one to come', () => {
    const tender = (deadline: string | null, awardedAt: string | null) => ({
      status: 'awarded',
      deadline,
      awardedAt,
    });
    expect(closedTenderSentence(tender(null, '2025-02-01T00:00:00Z'), NOW)).toBe(
      'This tender was awarded on 1 Feb 2025: a bid on it can no longer be submitted to the buyer.',
    );
    expect(closedTenderSentence(tender(null, null), NOW)).toBe(
      'This tender has been awarded: a bid on it can no longer be submitted to the buyer.',
    );
    // Listed as awarded with an award date still to come: never "already", never "was awarded on".
    const ahead = closedTenderSentence(tender('2026-11-20T12:00:00Z', '2027-01-12T00:00:00Z'), NOW);
    expect(ahead).toBe(
      'This tender is listed as awarded, with an award date still to come (12 Jan 2027), and its deadline has passed (20 Nov 2026): a bid on it is unlikely to be accepted by the buyer.',
    );
    expect(ahead).not.toContain('already');
  });
});
