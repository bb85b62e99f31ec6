import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ActionKind,
  decode,
  decodeText,
  encode,
  encodeKept,
  FORM_METADATA,
  StaleValueError,
  type StateOf,
  StateTooLargeError,
  VALUE_ROOM,
} from '../../../../src/app/shared/values/codec.ts';
import { parseConnectSubmission } from '../../../../src/app/shared/values/modal-submissions.ts';
import { openBotStore } from '../../../../src/app/storage/open-bot-store.ts';

const now = new Date('2026-11-22T12:00:00Z');
const state = { f: { q: 'cleaning', status: 'open' as const, valueMin: 100_000 }, o: 5 };

function store() {
  return openBotStore(`sqlite:${join(mkdtempSync(join(tmpdir(), 'codec-')), 'bot.sqlite')}`);
}

describe('the value codec', () => {
  it('reads back every state it writes', async () => {
    expect(await decode('searchPage', encode('searchPage', state))).toEqual(state);
    expect(await decode('bookmark', encode('bookmark', { t: 'ocds-1', c: 'detail' }))).toEqual({
      t: 'ocds-1',
      c: 'detail',
    });
    const shared = { t: 'ocds-1', c: state, s: 'U123ABC' };
    expect(await decode('bookmark', encode('bookmark', shared))).toEqual(shared);
    expect(encode('record', 'ocds-b5fd17-1')).toBe('ocds-b5fd17-1');
    expect(await decode('record', 'ocds-b5fd17-1')).toBe('ocds-b5fd17-1');
    expect(await decode('comment', encode('comment', { e: 'buyer', id: 'b-1' }))).toEqual({
      e: 'buyer',
      id: 'b-1',
    });
    expect(await decode('startBid', encode('startBid', { t: 'ocds-1' }))).toEqual({ t: 'ocds-1' });
    expect(decodeText('connectMetadata', encode('connectMetadata', { channelId: 'C1' }, 'metadata'))).toEqual(
      {
        channelId: 'C1',
      },
    );
  });

  it('refuses broken, forged and outdated values as a StaleValueError', async () => {
    const broken: [Parameters<typeof decode>[0], string | undefined][] = [
      ['searchPage', 'not json'],
      ['searchPage', 'null'],
      ['searchPage', '[]'],
      ['searchPage', '{"f":{},"o":-1}'],
      ['searchPage', '{"f":{},"o":1.5}'],
      ['searchPage', '{"f":{"status":"<!channel>"},"o":0}'],
      ['searchPage', '{"f":{"deadlineTo":"tomorrow"},"o":0}'],
      ['searchPage', '{"f":{"evil":1},"o":0}'],
      ['searchPage', '{"f":{},"o":0,"__proto__":{"x":1}}'],
      ['searchPage', undefined],
      ['bookmark', '{"t":"ocds-1"}'],
      ['bookmark', '{"t":"","c":"detail"}'],
      ['bookmark', '{"t":"ocds-1","c":"elsewhere"}'],
      ['bookmark', '{"t":"ocds-1","c":{"o":1}}'],
      // A forged "shared by" that is not a Slack user id (it is drawn as <@…> in the card).
      ['bookmark', '{"t":"ocds-1","c":"shared","s":"!channel"}'],
      ['record', ''],
      ['record', '   '],
      ['record', 'x'.repeat(301)],
      ['record', undefined],
      ['comment', '{"e":"pipeline","id":"1"}'],
      ['startBid', '{"t":""}'],
      // A token's shape without a store to look it up in.
      ['searchPage', `~${'A'.repeat(22)}`],
    ];
    expect(broken.length).toBeGreaterThan(0);
    for (const [kind, value] of broken) {
      await expect(decode(kind, value), String(value)).rejects.toThrow(StaleValueError);
    }
  });

  it("reads a form's metadata written by a newer copy, and refuses a button or option value with a key it does not know", async () => {
    // One value of every kind: a kind added to the codec without one here does not compile.
    const sample: { [K in ActionKind]: StateOf<K> } = {
      searchPage: state,
      listPage: { l: 'buyers', t: 'leeds', o: 5 },
      bookmark: { t: 'ocds-1', c: 'detail' },
      record: 'ocds-1',
      connectMetadata: { channelId: 'C1' },
      comment: { e: 'tender', id: 'ocds-1' },
      commentModal: {
        e: 'tender',
        id: 'ocds-1',
        k: '0b7e7a4c-7d5c-4f7e-9a39-3f1f1f0c2a11',
        c: 'C1',
        u: 'U1',
      },
      commentDelete: { d: 'c-1' },
      startBid: { t: 'ocds-1' },
      homeChannel: { k: 'bid', id: 'p-1' },
      searchBuilder: { c: 'C1' },
      pipeline: { p: 'p-1' },
      pipelineStage: { p: 'p-1', s: 's-1' },
      stageStatusOption: { p: 'p-1', s: 's-1', v: 'completed' },
      pipelineStatusOption: { p: 'p-1', v: 'won' },
      startBidModal: { t: 'ocds-1', k: '0b7e7a4c-7d5c-4f7e-9a39-3f1f1f0c2a11', c: 'C1' },
      stageNotesModal: { p: 'p-1', s: 's-1', c: 'C1', ts: null },
      editBidModal: { p: 'p-1', s: ['s-1'], c: 'C1', ts: null },
    };
    const forms: readonly ActionKind[] = FORM_METADATA;
    let checked = 0;
    for (const kind of Object.keys(sample) as ActionKind[]) {
      if (kind === 'record') continue;
      const written = JSON.parse(encode(kind, sample[kind] as never, 'metadata'));
      const fromNewerCopy = JSON.stringify({ ...written, zz: 'added later' });
      if (forms.includes(kind)) {
        expect(decodeText(kind, fromNewerCopy), kind).toEqual(written);
      } else {
        expect(() => decodeText(kind, fromNewerCopy), kind).toThrow(StaleValueError);
      }
      checked++;
    }
    expect(checked).toBe(Object.keys(sample).length - 1);
    // A form's metadata still refuses a known key with a wrong value.
    expect(() =>
      decodeText('startBidModal', JSON.stringify({ ...sample.startBidModal, k: 'not a key' })),
    ).toThrow(StaleValueError);
  });

  it('refuses to write a state that would not fit its value, rather than clip it', () => {
    expect(() => encode('record', 'x'.repeat(200), 'option')).toThrow(StateTooLargeError);
    expect(() => encode('comment', { e: 'tender', id: 'x'.repeat(140) }, 'option')).toThrow(
      StateTooLargeError,
    );
  });

  it('keeps a state too big for its value under a short token, until it expires', async () => {
    const bot = store();
    try {
      const big = { e: 'tender' as const, id: 'ocds-'.padEnd(290, 'x') };
      const value = await encodeKept('comment', big, 'option', bot, now);
      expect(value.length).toBeLessThanOrEqual(VALUE_ROOM.option);
      expect(value).toMatch(/^~/);
      expect(await decode('comment', value, bot, now)).toEqual(big);
      // A state that fits is carried as it is, nothing kept.
      expect(await encodeKept('comment', { e: 'tender', id: 'ocds-1' }, 'option', bot, now)).toBe(
        '{"e":"tender","id":"ocds-1"}',
      );
      // 31 days later the token has expired: the click is stale, not an error.
      const later = new Date(now.getTime() + 31 * 86_400_000);
      await expect(decode('comment', value, bot, later)).rejects.toThrow(StaleValueError);
      // A token never issued, and one issued for another kind of action, are stale too.
      await expect(decode('comment', `~${'B'.repeat(22)}`, bot, now)).rejects.toThrow(StaleValueError);
      const page = await encodeKept('searchPage', state, 'option', bot, now);
      await expect(decode('comment', page, bot, now)).rejects.toThrow(StaleValueError);
    } finally {
      await bot.close();
    }
  });
});

describe('modal submissions', () => {
  it('reads the connect modal from view.state.values, and anything unreadable as empty', () => {
    expect(
      parseConnectSubmission({
        'connect/key_block': { 'connect/key': { type: 'plain_text_input', value: 'tb_live_x' } },
        'connect/url_block': { 'connect/url': { type: 'plain_text_input', value: null } },
      }),
    ).toEqual({ key: 'tb_live_x', serviceUrl: '' });
    expect(parseConnectSubmission(undefined)).toEqual({ key: '', serviceUrl: '' });
    expect(parseConnectSubmission({ 'connect/key_block': { 'connect/key': { value: 42 } } })).toEqual({
      key: '',
      serviceUrl: '',
    });
    expect(parseConnectSubmission('nonsense')).toEqual({ key: '', serviceUrl: '' });
  });
});
