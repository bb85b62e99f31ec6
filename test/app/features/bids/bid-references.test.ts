import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveBidId } from '../../../../src/app/features/bids/bid-references.ts';
import { pipelineCommand, pipelinesCommand } from '../../../../src/app/features/bids/commands.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';
import { bidNow, cardsOf, newBid, stageAt } from './handler-support.ts';

const BIDS = 'C0BIDS';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
}, 60_000);
afterAll(async () => harness?.close());

/** The text people read in a message: its blocks' words, without button and menu values. */
function wordsOf(message: { text?: string; blocks?: unknown[] }): string {
  const texts: string[] = [message.text ?? ''];
  const walk = (node: unknown, key: string): void => {
    if (typeof node === 'string') {
      if (key === 'text') texts.push(node);
    } else if (Array.isArray(node)) {
      for (const item of node) walk(item, key);
    } else if (node && typeof node === 'object') {
      for (const [name, value] of Object.entries(node)) if (name !== 'value') walk(value, name);
    }
  };
  walk(message.blocks ?? [], '');
  return texts.join('\n');
}

/** The reference the bid's card shows, posted now by its full id. */
async function referenceOnCard(id: string): Promise<string> {
  await pipelineCommand(harness.context, harness.request({ channelId: BIDS }), id);
  const card = cardsOf(harness, BIDS, id).at(-1);
  const found = /`(BID-\d+)`/.exec(wordsOf(card ?? {}));
  if (!found) throw new Error('the card shows no reference');
  return found[1] as string;
}

describe('bids’ short references', () => {
  it('the card shows its reference and no id, and /tender pipeline <reference> opens the same bid', async () => {
    const bid = await newBid(harness, 'Reference card bid');
    const reference = await referenceOnCard(bid.id);
    const card = cardsOf(harness, BIDS, bid.id)[0];
    expect(wordsOf(card ?? {})).not.toMatch(UUID);
    // Button values still carry the id, so cards already posted keep working.
    expect(JSON.stringify(card?.blocks)).toContain(bid.id);
    for (const typed of [reference, reference.toLowerCase(), reference.replace('-', ''), `#${reference}`]) {
      const request = harness.request({ channelId: BIDS });
      await pipelineCommand(harness.context, request, typed);
      expect(request.said()).toBe('');
    }
    expect(cardsOf(harness, BIDS, bid.id)).toHaveLength(5);
    // Shown again, it keeps its reference.
    expect(await referenceOnCard(bid.id)).toBe(reference);
  });

  it('each bid gets its own reference, and a later one the next number', async () => {
    const first = await newBid(harness, 'Reference first bid');
    const second = await newBid(harness, 'Reference second bid');
    const one = Number((await referenceOnCard(first.id)).slice(4));
    const two = Number((await referenceOnCard(second.id)).slice(4));
    expect(two).toBe(one + 1);
  });

  it('status, stage, archive and restore take the reference and a UUID prefix', async () => {
    const bid = await newBid(harness, 'Reference commands bid');
    const reference = await referenceOnCard(bid.id);
    await pipelineCommand(
      harness.context,
      harness.request({ channelId: BIDS }),
      `status ${reference} on hold`,
    );
    expect((await bidNow(harness, bid.id)).status).toBe('on_hold');
    await pipelineCommand(harness.context, harness.request({ channelId: BIDS }), `stage ${reference} 2 done`);
    expect(stageAt(await bidNow(harness, bid.id), 2).status).toBe('completed');
    await pipelineCommand(
      harness.context,
      harness.request({ channelId: BIDS }),
      `archive ${bid.id.slice(0, 8)}`,
    );
    expect((await bidNow(harness, bid.id)).archived).toBe(true);
    // An archived bid's sentence names it by its reference to restore it.
    const refused = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, refused, `status ${reference} bidding`);
    expect(refused.said()).toContain(`/tender pipeline restore ${reference}`);
    expect(refused.said()).not.toMatch(UUID);
    await pipelineCommand(
      harness.context,
      harness.request({ channelId: BIDS }),
      `restore ${bid.id.slice(0, 13)}`,
    );
    expect((await bidNow(harness, bid.id)).archived).toBe(false);
  });

  it('a UUID prefix of 8 characters opens the bid, even one never shown before', async () => {
    const bid = await newBid(harness, 'Reference prefix bid');
    const request = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, request, bid.id.slice(0, 8).toUpperCase());
    expect(request.said()).toBe('');
    expect(cardsOf(harness, BIDS, bid.id)).toHaveLength(1);
    expect(wordsOf(cardsOf(harness, BIDS, bid.id)[0] ?? {})).toMatch(/`BID-\d+`/);
  });

  it('an ambiguous prefix lists the matches; a short one or an unknown reference says what to type', async () => {
    // Two bids Tenderbot has shown whose ids start alike (the store's own ids, as it keeps them).
    const twins = ['abcdef12-0000-4000-8000-000000000001', 'abcdef12-0000-4000-8000-000000000002'];
    const numbers = await harness.context.store.bidReferenceNumbers(harness.slack.teamId, twins);
    const ambiguous = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, ambiguous, 'abcdef12');
    expect(ambiguous.said()).toContain('2 bids have ids starting with `abcdef12`:');
    for (const [id, number] of numbers) expect(ambiguous.said()).toContain(`\`BID-${number}\` (\`${id}\`)`);
    expect(ambiguous.said()).toContain('Type the one you mean by its reference, or more of its id.');

    const unknown = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, unknown, 'status BID-99999 bidding');
    expect(unknown.said()).toContain('No bid in this workspace is `BID-99999`.');
    expect(unknown.said()).toContain('Type the bid’s reference as its card shows it (like `BID-7`)');

    const short = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, short, 'abc123');
    expect(short.said()).toContain('`abc123` is too short to pick out one bid.');

    const nothing = harness.request({ channelId: BIDS });
    await pipelineCommand(harness.context, nothing, 'ffffffff9');
    expect(nothing.said()).toContain('No bid’s id starts with `ffffffff9`.');
    expect(cardsOf(harness, BIDS, twins[0] as string)).toEqual([]);
  });

  it('reads BID 1 and digits of any script as the reference; sends no out-of-range number on as an id', async () => {
    const bid = await newBid(harness, 'Unicode digits');
    const [number] = [
      ...(await harness.context.store.bidReferenceNumbers(harness.slack.teamId, [bid.id])).values(),
    ];
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    const resolve = (typed: string) => resolveBidId(harness.context, harness.slack.teamId, typed, client);
    const arabic = String(number).replace(/\d/g, (digit) => String.fromCodePoint(0x660 + Number(digit)));
    const fullwidth = String(number).replace(/\d/g, (digit) => String.fromCodePoint(0xff10 + Number(digit)));
    for (const typed of [`BID ${number}`, `BID-${arabic}`, `bid${fullwidth}`, `BID-0${number}`])
      expect(await resolve(typed), typed).toEqual({ id: bid.id });
    for (const [typed, shown] of [
      ['BID-99999999999999999999', 'BID-99999999999999999999'],
      ['BID-1000000000', 'BID-1000000000'],
    ] as const) {
      const answer = await resolve(typed);
      expect(answer, typed).toHaveProperty('problem');
      expect(String((answer as { problem: string }).problem)).toContain(
        `No bid in this workspace is \`${shown}\`.`,
      );
    }
  });

  it('/tender pipelines shows each bid’s reference and no id; Post in channel still carries the id', async () => {
    const bid = await newBid(harness, 'Reference listed bid');
    const request = harness.request({ channelId: BIDS });
    await pipelinesCommand(harness.context, request, 'Reference listed');
    const list = request.answers[0] ?? {};
    expect(wordsOf(list)).toMatch(/`BID-\d+`/);
    expect(wordsOf(list)).not.toMatch(UUID);
    const reference = /`(BID-\d+)`/.exec(wordsOf(list))?.[1] as string;
    // The list gave it the reference its card shows.
    expect(await referenceOnCard(bid.id)).toBe(reference);
  });

  it('bids first shown together are numbered oldest first, though the list shows the newest first', async () => {
    const names = ['Numbered oldest bid', 'Numbered middle bid', 'Numbered newest bid'];
    for (const name of names) {
      await newBid(harness, name);
      // Started a moment apart, as people start them: each has its own creation time.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const request = harness.request({ channelId: BIDS });
    await pipelinesCommand(harness.context, request, 'Numbered');
    const words = wordsOf(request.answers[0] ?? {});
    // Listed newest first…
    const at = names.map((name) => words.indexOf(name));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect(at[2]).toBeLessThan(at[0] as number);
    // …and numbered in the order they were started.
    const numberOf = (name: string) => {
      const after = words.slice(words.indexOf(name));
      return Number(/`BID-(\d+)`/.exec(after)?.[1]);
    };
    const numbers = names.map(numberOf);
    expect(numbers[1]).toBe((numbers[0] as number) + 1);
    expect(numbers[2]).toBe((numbers[0] as number) + 2);
  });
});
