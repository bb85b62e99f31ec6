import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { code, mrkdwn, text } from '../../../../src/app/shared/views/mrkdwn.ts';
import { fieldErrors, plainOf, plainSentence } from '../../../../src/app/shared/views/plain-sentence.ts';

describe('plain sentences (plain-text fields: Workflow Builder errors, view errors)', () => {
  it('joins literals and outside text as they are', () => {
    const typed = 'Lunch <b> & `x`';
    expect(plainSentence`No stage “${typed}”; ${3} stages.`).toBe('No stage “Lunch <b> & `x`”; 3 stages.');
  });

  it('takes no Mrkdwn part: its marks would show as typed', () => {
    const marked = mrkdwn`Run ${code('/tender connect me')}`;
    // @ts-expect-error a Mrkdwn part is refused by type.
    plainSentence`A ${marked}.`;
    // @ts-expect-error so is escaped outside text.
    plainSentence`A ${text('<b>')}.`;
    // @ts-expect-error and what may be Mrkdwn: a union holding it, or anything untyped.
    plainSentence`A ${marked as typeof marked | string}.`;
    // biome-ignore lint/suspicious/noExplicitAny: an untyped part is what this refuses.
    const untyped = marked as unknown as any;
    // @ts-expect-error
    plainSentence`A ${untyped}.`;
    // Checked by the type checker (npm test runs it); at run time the parts are joined as they are.
    expect(plainSentence`A ${'b'} ${1}.`).toBe('A b 1.');
  });

  it('reads the app’s mrkdwn sentences back as plain text', () => {
    expect(plainOf(mrkdwn`Run ${code('/tender connect me')} for ${text('A & <B>')}.`)).toBe(
      'Run /tender connect me for A & <B>.',
    );
    expect(plainOf(mrkdwn`Invite Tenderbot to <#C0BIDS> first.`)).toBe('Invite Tenderbot to #C0BIDS first.');
  });

  it('drops the app’s bold, italic and strike marks, and shows outside text and code as typed', () => {
    expect(plainOf(mrkdwn`*No bid* _yet_ for ~old~ ${text('on_hold A*B')}.`)).toBe(
      'No bid yet for old on_hold A*B.',
    );
    // Outside text's marks were drawn as look-alikes so that they format nothing: back as typed.
    expect(plainOf(mrkdwn`Nothing found for ${text('*urgent* _cleaning_ `x`')}.`)).toBe(
      'Nothing found for *urgent* _cleaning_ `x`.',
    );
    // In a code span what a person typed stays, marks and all.
    expect(plainOf(mrkdwn`No tender matches ${code('clean* _x_')}.`)).toBe('No tender matches clean* _x_.');
    expect(plainOf(mrkdwn`Ask <@U0LEAD> or <!here>.`)).toBe('Ask @U0LEAD or @here.');
  });
});

describe('sentences under a window’s fields', () => {
  it('are answered only through fieldErrors, which takes plain sentences', () => {
    // Slack shows a field's error as plain text: an answer written by hand could give it mrkdwn
    // (its backticks and entities would show as typed), which the type of fieldErrors refuses.
    const root = join(import.meta.dirname, '../../../../src/app');
    // Any response_action but a window's update, push or clear, spelt in any way, is such an answer.
    const byHand = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('plain-sentence.ts'))
      .filter((file) =>
        /response_action['"]?\s*:(?!\s*['"](?:update|push|clear)['"])/.test(
          readFileSync(join(root, file), 'utf8'),
        ),
      );
    expect(byHand).toEqual([]);
    expect(fieldErrors({ block: plainSentence`Give the bid a name.` })).toEqual({
      response_action: 'errors',
      errors: { block: 'Give the bid a name.' },
    });
  });
});
