import { describe, expect, it } from 'vitest';
import {
  clip,
  clipMrkdwn,
  code,
  escapeMrkdwn,
  link,
  literalText,
  localMoment,
  type Mrkdwn,
  mrkdwn,
  pieces,
  safeText,
  text,
} from '../../../../src/app/shared/views/mrkdwn.ts';

describe('text from outside in mrkdwn', () => {
  it('escapes Slack’s control characters', () => {
    expect(escapeMrkdwn('<!channel> & <@U123|x>')).toBe('&lt;!channel&gt; &amp; &lt;@U123|x&gt;');
  });

  it('shows as U+FFFD what would change how the text around it is drawn, or is not text at all', () => {
    // A right-to-left override turns what follows around: "Cleaning\u202Efdp.exe" reads as "Cleaningexe.pdf".
    expect(escapeMrkdwn('Cleaning\u202Efdp.exe')).toBe('Cleaning\uFFFDfdp.exe');
    for (const mark of ['\u202A', '\u202B', '\u202C', '\u202D', '\u2066', '\u2067', '\u2068', '\u2069']) {
      expect(escapeMrkdwn(`a${mark}b`)).toBe('a\uFFFDb');
    }
    expect(escapeMrkdwn('nul\u0000 bell\u0007 esc\u001B del\u007F c1\u0085\u009B')).toBe(
      'nul\uFFFD bell\uFFFD esc\uFFFD del\uFFFD c1\uFFFD\uFFFD',
    );
    // Half a surrogate pair (a typed or imported emoji cut in two) is not text Slack can show.
    expect(escapeMrkdwn('broken \uD83E end')).toBe('broken \uFFFD end');
    expect(escapeMrkdwn('\uDDF9 alone')).toBe('\uFFFD alone');
  });

  it('leaves every drawable character as it is: tabs, newlines, emoji, other scripts, accents', () => {
    const text = 'Line one\n\tLine two 🧹 👩🏽‍🔧 Ünïcödé — Łódź; مرحبا עברית \u200F 中文';
    expect(escapeMrkdwn(text)).toBe(text);
    expect(escapeMrkdwn('pasted\r\nlines')).toBe('pasted\nlines');
  });

  it('does the same in what a person typed (literalText) and in clipped text (safeText)', () => {
    expect(literalText('\u202Eclean*')).toBe('`\uFFFDclean*`');
    expect(safeText('x\u202Ey <b>', 6)).toBe('x\uFFFDy …'); // never half an entity
    expect(safeText(null, 10)).toBe('');
    expect(safeText('a & b', 5)).toBe('a …');
  });

  it('keeps plain_text drawable too (clip), and never cuts an emoji in half', () => {
    expect(clip('Pipeline \u202Eenilepip', 75)).toBe('Pipeline \uFFFDenilepip');
    const cut = clip(`${'a'.repeat(8)}🧹🧹`, 10); // the cut falls inside the first emoji
    expect(cut).toBe(`${'a'.repeat(8)}…`);
    expect(cut.isWellFormed()).toBe(true);
    expect(clip(`${'a'.repeat(7)}🧹🧹`, 10)).toBe(`${'a'.repeat(7)}🧹…`);
  });

  it('cuts a long name with an & near its end, not back to the &: plain text keeps its & as typed', () => {
    const name = `Cleaning & catering for Hackney schools, libraries and leisure centres, lot 2 north, ${'and more '.repeat(12)}`;
    const header = clip(name, 150);
    expect(header).toBe(`${name.slice(0, 149)}…`);
    expect(header.length).toBeGreaterThan(140);
    // In mrkdwn the & is an entity: the cut still falls near the end, and never inside one.
    const escaped = safeText(name, 150);
    expect(escaped.startsWith('Cleaning &amp; catering for Hackney')).toBe(true);
    expect(escaped.length).toBeGreaterThan(140);
    expect(safeText(`${'a'.repeat(146)} & b`, 150)).toBe(`${'a'.repeat(146)} …`);
    // Plain text's & is a character like any other, also where the cut falls just after it.
    expect(clip('Maintenance of R&D labs', 18)).toBe('Maintenance of R&…');
  });

  it('handles a huge text in linear time', () => {
    const huge = '\u202E<&>'.repeat(100_000);
    const escaped = escapeMrkdwn(huge);
    expect(escaped.length).toBe(100_000 * '\uFFFD&lt;&amp;&gt;'.length);
  });
});

describe('code spans stay on one line', () => {
  it('turns line breaks and tabs in what is shown as code into spaces', () => {
    expect(code('status:"a\n*boss says* _urgent_"')).toBe('`status:"a *boss says* _urgent_"`');
    expect(code('a\r\n\tb\u2028c')).toBe('`a b c`');
  });
});

describe('moments in each reader’s own time', () => {
  it('writes Slack’s date token with the moment’s second, and the app’s words as its fallback', () => {
    const moment = new Date('2026-07-03T12:00:30.900Z');
    expect(localMoment(moment, 'deadline', '3 Jul 2026, 12:00 UTC')).toBe(
      `<!date^${Date.parse('2026-07-03T12:00:30Z') / 1000}^{date_short} at {time} your time|3 Jul 2026, 12:00 UTC>`,
    );
    expect(localMoment(moment, 'moment', 'x')).toContain('^{date_short} at {time}|x>');
    // A fallback cannot end the token early or start another.
    expect(localMoment(moment, 'moment', 'a>b|c<!here>')).toMatch(/\|a&gt;b\/c&lt;!here&gt;>$/);
    expect(localMoment(new Date('nope'), 'moment', 'an unknown time')).toBe('an unknown time');
    // Before 1970 Slack's token has no seconds to count: the words alone.
    expect(localMoment(new Date('1900-01-01T12:00:00Z'), 'deadline', '1 Jan 1900, 12:00 UTC')).toBe(
      '1 Jan 1900, 12:00 UTC',
    );
  });

  it('never splits a link, mention or date between two blocks', () => {
    const date = localMoment(new Date('2026-07-03T12:00:00Z'), 'moment', '3 Jul 2026, 12:00 UTC');
    const label = text('Cleaning of schools and colleges in Leeds');
    const line = mrkdwn`• ${link('https://example.org/n/1', label) as Mrkdwn} · ${date}\n`;
    const whole = joinLines(Array.from({ length: 40 }, () => line));
    for (const size of [100, 137, 250, 1000]) {
      const parts = pieces(whole, size);
      expect(parts.join('')).toBe(whole);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(size);
        // Every `<` opened in a piece is closed in it.
        expect(part.split('<').length).toBe(part.split('>').length);
      }
      // Cut short, a line loses its date whole rather than keeping half of it.
      for (let max = 20; max < line.length; max += 7) {
        const clipped = clipMrkdwn(line, max);
        expect(clipped.split('<').length).toBe(clipped.split('>').length);
        expect(clipped.endsWith('…')).toBe(true);
      }
    }
  });
});

describe('plain text cut short', () => {
  it('keeps what follows a `<`: plain text shows it as typed, and has no links to keep whole', () => {
    const header = `<!-- imported --  Provision of catering for ${'schools '.repeat(20)}`;
    expect(clip(header, 75)).toBe(`${header.slice(0, 74)}…`);
    expect(clip('Check <http://buyer.example/docs for the spec and the lots of the framework', 40)).toBe(
      'Check <http://buyer.example/docs for th…',
    );
  });
});

function joinLines(lines: Mrkdwn[]): Mrkdwn {
  return lines.reduce((all, line) => mrkdwn`${all}${line}`, mrkdwn``);
}
