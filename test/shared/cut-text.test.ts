import { describe, expect, it } from 'vitest';
import { cutText } from '../../src/shared/cut-text.ts';

const ROCKET = '\u{1F680}';
/** Man, ZWJ, woman, ZWJ, girl: one emoji of 8 UTF-16 units. */
const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
/** A thumbs-up with a skin tone: one emoji of 4 units. */
const THUMB = '\u{1F44D}\u{1F3FD}';
/** Two flags: each a pair of regional indicators, 4 units. */
const FLAGS = '\u{1F1EC}\u{1F1E7}\u{1F1EB}\u{1F1F7}';

/** What no cut may leave: half a surrogate pair, or the U+FFFD that a half becomes on the wire. */
function expectWhole(text: string): void {
  expect(text.isWellFormed()).toBe(true);
  expect(text).not.toContain('\uFFFD');
}

describe('cutText: outside text to a length limit, never half a character', () => {
  it('keeps text at or under the limit as it is, emoji and all', () => {
    expect(cutText('', 0)).toBe('');
    expect(cutText('', 10, '…')).toBe('');
    expect(cutText(`${'a'.repeat(198)}${ROCKET}`, 200)).toBe(`${'a'.repeat(198)}${ROCKET}`);
    expect(cutText(`${'a'.repeat(198)}${ROCKET}`, 200, '…')).toBe(`${'a'.repeat(198)}${ROCKET}`);
    expect(cutText(FAMILY, FAMILY.length)).toBe(FAMILY);
  });

  it('never splits a surrogate pair: the emoji goes whole (the workflow step’s 199 × "a" + 🚀)', () => {
    const cut = cutText(`${'a'.repeat(199)}${ROCKET}`, 200);
    expect(cut).toBe('a'.repeat(199));
    expectWhole(cut);
    expect(cutText(`${'a'.repeat(198)}${ROCKET}x`, 200, '…')).toBe(`${'a'.repeat(198)}…`);
  });

  it('keeps a letter with its combining marks together', () => {
    // "e" + acute + cedilla below is one character of three units.
    const accented = 'e\u0301\u0327';
    expect(cutText(`ab${accented}cd`, 4)).toBe('ab');
    expect(cutText(`ab${accented}cd`, 5)).toBe(`ab${accented}`);
    expect(cutText(`ab${accented}cd`, 5, '…')).toBe('ab…');
  });

  it('keeps ZWJ sequences, skin tones and flags whole', () => {
    for (let max = 1; max < FAMILY.length; max += 1) expect(cutText(`x${FAMILY}y`, max)).toBe('x');
    expect(cutText(`x${FAMILY}y`, 1 + FAMILY.length)).toBe(`x${FAMILY}`);
    expect(cutText(`x${THUMB}y`, 3)).toBe('x');
    expect(cutText(`x${THUMB}y`, 5)).toBe(`x${THUMB}`);
    expect(cutText(FLAGS, 6)).toBe('\u{1F1EC}\u{1F1E7}');
    expect(cutText(`x${FLAGS}`, 4)).toBe('x');
  });

  it('counts UTF-16 units, as the service’s zod limits do, so the cut always fits', () => {
    const texts = [
      `${'a'.repeat(199)}${ROCKET}`,
      ROCKET.repeat(150),
      FAMILY.repeat(40),
      `${THUMB}é`.repeat(90),
    ];
    for (const text of texts)
      for (const max of [1, 2, 3, 50, 199, 200]) {
        const cut = cutText(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expectWhole(cut);
        expect(text.startsWith(cut)).toBe(true);
        const marked = cutText(text, max, '…');
        expect(marked.length).toBeLessThanOrEqual(max);
        expectWhole(marked);
      }
  });

  it('the mark takes its room from the limit, and is all there is when nothing else fits', () => {
    expect(cutText('abcdef', 4, '…')).toBe('abc…');
    expect(cutText('abcdef', 1, '…')).toBe('…');
    expect(cutText(`${ROCKET}abc`, 2, '…')).toBe('…');
    expect(cutText('abcdef', 0)).toBe('');
  });

  it('a first character longer than the limit is cut between code points, never to nothing', () => {
    const zalgo = `a${'\u0301'.repeat(300)}`;
    expect(cutText(zalgo, 200)).toBe(zalgo.slice(0, 200));
    expect(cutText(`${ROCKET}${'\u0301'.repeat(10)}`, 3)).toBe(`${ROCKET}\u0301`);
    expect(cutText(`${ROCKET}${'\u0301'.repeat(10)}`, 2)).toBe(ROCKET);
    expect(cutText(`${ROCKET}${'\u0301'.repeat(10)}`, 1)).toBe('');
  });
});
