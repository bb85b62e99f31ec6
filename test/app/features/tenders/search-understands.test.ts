import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReachIds, SEARCH_BUILDER_FIELDS } from '../../../../src/app/shared/ids.ts';
import { SuggestionIds } from '../../../../src/app/shared/views/suggestions.ts';
import type { FakeMessage } from '../../../../src/fake-slack/fake-slack.ts';
import { EURO_REFERENCE_RATES, REFERENCE_RATES_DATE } from '../../../../src/service/money/reference-rates.ts';
import { openDatabase } from '../../../../src/service/store/database.ts';
import {
  PublicRecordsWriter,
  type TenderReleaseInput,
} from '../../../../src/service/store/public-records-writer.ts';
import { eventually, type RunningBot, startBotAsCarol } from '../../../support/bot.ts';
import { KEYS } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { textOf } from '../../../support/slack-text.ts';
import { withoutShare } from './tender-answers.ts';

// Search that understands people, through the real app, the fake Slack and a real service:
// "Did you mean", a mistyped subcommand, sentences in direct messages, printed references, and
// value headings that say the currency rule the service applied.

const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';

/** Snow removal in three currencies: at the rates of 2024-12-31, only some are over £1,000,000. */
const SNOW: [string, number, string][] = [
  ['cad-1048640', 1_048_640, 'CAD'], // about £581,700: under
  ['cad-2000000', 2_000_000, 'CAD'], // about £1,109,400: over
  ['eur-1300000', 1_300_000, 'EUR'], // about £1,078,000: over
  ['eur-90000', 90_000, 'EUR'],
  ['gbp-1000000', 1_000_000, 'GBP'], // exactly the bound: over it, as `valueMin` is a least value
  ['gbp-999999', 999_999, 'GBP'],
];
/** A Contracts Finder notice: the notice id its pages print, and its ocid. */
const CF_NOTICE = '7d1e4c2a-93b5-4f08-a6de-2b9c0f1e5a77';
const CF_OCID = `ocds-b5fd17-${CF_NOTICE}`;
/** A Buyandsell notice: its ocid, and the number the source prints. */
const PRINTED = 'PW-24-00012345';
const PRINTED_OCID = `ocds-canada-bas-${PRINTED}`;

function release(overrides: Partial<TenderReleaseInput> & { id: string; title: string }): TenderReleaseInput {
  return {
    releaseDate: '2030-01-10T09:00:00Z',
    description: null,
    status: 'open',
    buyer: null,
    value: null,
    deadline: '2030-12-01T12:00:00Z',
    region: null,
    cpvCodes: [],
    sourceName: 'test',
    sourceId: overrides.id,
    url: null,
    frameworkId: null,
    awards: [],
    framework: null,
    ...overrides,
  };
}

let sandbox: TestSandbox;
let bot: RunningBot;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // Written by another connection to the service's own file, as an import would.
  const db = openDatabase(sandbox.dbPath);
  try {
    const writer = new PublicRecordsWriter(db);
    db.transaction(() => {
      SNOW.forEach(([suffix, amount, currency], index) => {
        writer.writeRelease(
          release({
            id: `ocds-test-snow-${suffix}`,
            title: `Snow removal, depot ${suffix}`,
            value: { amount, currency },
            releaseDate: `2030-01-${String(10 + index).padStart(2, '0')}T09:00:00Z`,
          }),
        );
      });
      writer.writeRelease(
        release({
          id: 'ocds-test-catering-wales',
          title: 'Quorlent school catering, Wales',
          region: 'Wales',
        }),
      );
      writer.writeRelease(
        release({
          id: 'ocds-test-catering-south-west',
          title: 'Quorlent school catering, South West',
          region: 'South West',
        }),
      );
      writer.writeRelease(
        release({
          id: 'ocds-test-catering-scotland',
          title: 'Quorlent school catering, Scotland',
          region: 'Scotland',
        }),
      );
      writer.writeRelease(
        release({
          id: PRINTED_OCID,
          title: 'Canine control of the geese',
          sourceName: 'Buyandsell',
          sourceId: '14-2015',
          value: { amount: 40_000, currency: 'CAD' },
        }),
      );
      writer.writeRelease(
        release({
          id: CF_OCID,
          title: 'Quayside lighting renewal',
          sourceName: 'Contracts Finder',
          sourceId: 'tender_999001/1234567',
          value: { amount: 85_000, currency: 'GBP' },
        }),
      );
      writer.finish();
    })();
  } finally {
    db.close();
  }
  bot = await startBotAsCarol(sandbox);
}, 120_000);

afterAll(async () => {
  await bot?.stop();
  await sandbox?.stop();
});

/** `/tender TEXT` in the channel: the next message the member sees there. */
async function command(text: string): Promise<FakeMessage> {
  const before = bot.slack.messagesIn(CHANNEL, MEMBER).length;
  const answer = await bot.slack.slashCommand(MEMBER, CHANNEL, '/tender', text);
  expect(answer.status).toBe(200);
  return eventually(
    () => bot.slack.answerTo(answer, CHANNEL, MEMBER, before),
    `an answer to /tender ${text}`,
    15_000,
  );
}

/** A direct message to Tenderbot: its answer. */
async function directMessage(text: string): Promise<FakeMessage> {
  const dm = bot.slack.dmOf(MEMBER);
  const before = bot.slack.messagesIn(dm).length;
  await bot.slack.sendAsUser(MEMBER, dm, text);
  return eventually(
    () =>
      bot.slack
        .messagesIn(dm)
        .slice(before)
        .find((message) => message.authorId !== MEMBER),
    `the answer to “${text}”`,
    15_000,
  );
}

/** The titles of the cards a message shows (each card's first section, in bold). */
function titlesIn(message: FakeMessage): string[] {
  return (
    JSON.stringify(message.blocks)
      .match(/"text":"\*[^*"]+\*"/g)
      ?.map((field) => field.slice(9, -2)) ?? []
  );
}

function hasButton(message: FakeMessage, actionId: string): boolean {
  return JSON.stringify(message.blocks).includes(`"action_id":"${actionId}"`);
}

/**
 * Waits until the service suggests `correction` for `word`: it reads its vocabulary again in the
 * background once records are written, so a test asking first does not depend on the file's order.
 */
async function serviceSuggests(word: string, correction: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    const answer = await sandbox.call('GET', `/v1/tenders?q=${encodeURIComponent(word)}&limit=1`, {
      key: KEYS.carolMemberAcme,
    });
    if (
      (answer.body.suggestions ?? []).some((each: { correction: string }) => each.correction === correction)
    )
      return;
    if (tries > 300) throw new Error(`the service never suggested ${correction}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** How many tenders the service counts for a query, asked directly. */
async function serviceTotal(query: Record<string, string>): Promise<number> {
  const answer = await sandbox.call('GET', `/v1/tenders?${new URLSearchParams({ ...query, limit: '1' })}`, {
    key: KEYS.carolMemberAcme,
  });
  expect(answer.status).toBe(200);
  return answer.body.pagination.total;
}

describe('a misspelt word', () => {
  it('is answered “Did you mean *cleaning*?”, and its button runs the corrected search in place', async () => {
    const answer = await command('search clenaing');
    expect(textOf(answer)).toContain('Found no tenders matching');
    expect(textOf(answer)).toContain('Did you mean *cleaning*?');
    expect(hasButton(answer, SuggestionIds.searchMeant)).toBe(true);

    await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.searchMeant);
    const cleaning = await serviceTotal({ q: 'cleaning' });
    expect(cleaning).toBeGreaterThan(0);
    // The same message now shows the corrected search, with the service's own count.
    await eventually(
      () => textOf(answer).includes('Tenders matching “cleaning”'),
      'the corrected search drawn in place',
      15_000,
    );
    expect(textOf(answer)).toContain(`of ${cleaning.toLocaleString('en-GB')}`);
    expect(textOf(answer)).not.toContain('Did you mean');
  });

  it('its button keeps the value filter’s currency: the corrected search compares as the typed one did', async () => {
    const answer = await command('search clenaing value>100k cad');
    expect(textOf(answer)).toContain('Did you mean *cleaning*?');
    await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.searchMeant);
    const expected = await serviceTotal({ q: 'cleaning', valueMin: '100000', currency: 'CAD' });
    await eventually(
      () =>
        textOf(answer).includes(
          'Tenders matching “cleaning”, worth CA$100,000 or more; amounts in other currencies',
        ),
      'the corrected search, in Canadian dollars',
      15_000,
    );
    expect(expected).toBeGreaterThan(0);
    expect(textOf(answer)).toContain(`of ${expected.toLocaleString('en-GB')}`);
    expect(expected).not.toBe(await serviceTotal({ q: 'cleaning', valueMin: '100000' }));
  });

  it('a search that finds tenders offers nothing', async () => {
    const answer = await command('search cleaning');
    expect(textOf(answer)).not.toContain('Did you mean');
    expect(hasButton(answer, SuggestionIds.searchMeant)).toBe(false);
  });
});

describe('a mistyped subcommand', () => {
  it('`/tender serach cleaning` as a message to Tenderbot: “Did you mean `/tender search`?”, and its button runs it', async () => {
    const answer = await directMessage('/tender serach cleaning');
    expect(textOf(answer)).toContain('Did you mean `/tender search`?');
    expect(textOf(answer)).not.toContain('Here is what');
    expect(hasButton(answer, SuggestionIds.commandMeant)).toBe(true);
    await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.commandMeant);
    const dm = bot.slack.dmOf(MEMBER);
    await eventually(
      () =>
        bot.slack.messagesIn(dm).some((message) => textOf(message).includes('Tenders matching “cleaning”')),
      'the search run',
      15_000,
    );
  });
});

/** Presses the offer's button and waits for the channel's confirmation of the subscription. */
async function confirmedByPressing(answer: FakeMessage, waitingFor: string): Promise<FakeMessage> {
  const before = bot.slack.messagesIn(CHANNEL).length;
  await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.commandMeant);
  return eventually(
    () =>
      bot.slack
        .messagesIn(CHANNEL)
        .slice(before)
        .find(
          (message) => message.ephemeralTo === null && textOf(message).includes('subscribed this channel'),
        ),
    waitingFor,
    15_000,
  );
}

describe('`/tender subscribe` without the kind of subscription', () => {
  it('`/tender subscribe cleaning`: “Did you mean `/tender subscribe search cleaning`?”, and its button subscribes the channel', async () => {
    const answer = await command('subscribe cleaning hourly');
    expect(textOf(answer)).toContain('Did you mean `/tender subscribe search cleaning hourly`?');
    // Nothing is subscribed until the button is pressed; the usage is under the offer.
    expect(textOf(answer)).toContain('Subscribe this channel with');
    expect(bot.slack.messagesIn(CHANNEL).some((message) => textOf(message).includes('new tenders'))).toBe(
      false,
    );
    expect(hasButton(answer, SuggestionIds.commandMeant)).toBe(true);
    await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.commandMeant);
    // Subscribing posts its confirmation in the channel, for everyone.
    const confirmation = await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL)
          .find((message) => message.ephemeralTo === null && /cleaning/.test(textOf(message))),
      'the subscription’s confirmation in the channel',
      15_000,
    );
    expect(textOf(confirmation)).toMatch(/hourly|every hour/i);
  });

  it('a feed of a misspelt word is asked about before it is followed, with the corrected feed one click away', async () => {
    await serviceSuggests('Qourlent', 'quorlent');
    const answer = await command('subscribe search Qourlent region:Wales daily 03:18');
    expect(textOf(answer)).toContain('No tender matches “Qourlent” today, so that feed would post nothing');
    expect(textOf(answer)).toContain('Did you mean *quorlent*?');
    expect(JSON.stringify(answer.blocks)).toContain(
      '"value":"subscribe search quorlent region:Wales daily 03:18"',
    );
    // Nothing subscribed yet.
    const confirmed = () =>
      bot.slack
        .messagesIn(CHANNEL)
        .find(
          (message) => message.ephemeralTo === null && textOf(message).includes('New tenders for “quorlent”'),
        );
    expect(confirmed()).toBeUndefined();
    await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.commandMeant);
    const confirmation = await eventually(confirmed, 'the corrected feed’s confirmation', 15_000);
    expect(textOf(confirmation)).toContain('in Wales');
    expect(textOf(confirmation)).not.toContain('No tender matches it today');
  });

  it('a feed with a misspelt region: the subscribe with the region meant, one click away', async () => {
    const answer = await command('subscribe search Quorlent region:Walse daily 03:20');
    expect(textOf(answer)).toContain('Tenderbot knows no region called “Walse”');
    expect(JSON.stringify(answer.blocks)).toContain(
      '"value":"subscribe search Quorlent region:\\"Wales\\" daily 03:20"',
    );
    const confirmation = await confirmedByPressing(answer, 'the confirmation');
    expect(textOf(confirmation)).toContain('in Wales');
  });

  it('a feed with a misspelt word and a misspelt region: both mended in one offer, one click away', async () => {
    await serviceSuggests('Qourlent', 'quorlent');
    const answer = await command('subscribe search Qourlent region:Walse daily 03:21');
    expect(textOf(answer)).toContain('Tenderbot knows no region called “Walse”');
    expect(textOf(answer)).toContain(
      'No tender there matches “Qourlent” today either: did you mean *quorlent*?',
    );
    expect(JSON.stringify(answer.blocks)).toContain(
      '"value":"subscribe search quorlent region:\\"Wales\\" daily 03:21"',
    );
    const confirmation = await confirmedByPressing(answer, 'the confirmation, with no second question');
    expect(textOf(confirmation)).toContain('“quorlent”');
    expect(textOf(confirmation)).toContain('in Wales');
  });

  it('a feed of words that match nothing and are no misspelling is followed, and the confirmation says so', async () => {
    const before = bot.slack.messagesIn(CHANNEL).length;
    await command('subscribe search "zzqq xxyy" daily 03:19');
    const confirmation = await eventually(
      () =>
        bot.slack
          .messagesIn(CHANNEL)
          .slice(before)
          .find((message) => message.ephemeralTo === null && textOf(message).includes('zzqq xxyy')),
      'the confirmation',
      15_000,
    );
    expect(textOf(confirmation)).toContain('No tender matches it today: it posts when one is published.');
  });
});

describe('a mistyped slash command', () => {
  it('`/tender serach cleaning`: “Did you mean `/tender search`?” instead of the help card, and its button runs it', async () => {
    const answer = await command('serach cleaning');
    expect(textOf(answer)).toContain('Did you mean `/tender search`?');
    expect(textOf(answer)).not.toContain('Here is what');
    expect(hasButton(answer, SuggestionIds.commandMeant)).toBe(true);
    await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.commandMeant);
    // Try again's way: the corrected command's answer takes the suggestion's place.
    await eventually(
      () => textOf(answer).includes('Tenders matching “cleaning”'),
      'the corrected command run',
      15_000,
    );
  });

  it('a word near no subcommand gets the help card, under the search its words make', async () => {
    const answer = await command('xylophone cleaning');
    expect(textOf(answer)).not.toContain('Did you mean');
    expect(textOf(answer)).toContain('`xylophone` is not a `/tender` command');
    expect(textOf(answer)).toContain('`/tender search xylophone cleaning`');
    expect(hasButton(answer, SuggestionIds.commandMeant)).toBe(true);
  });
});

describe('a region of two words typed without quotes', () => {
  it('`region:south west` is read as the region South West, its second word not searched for, and said so', async () => {
    const answer = await command('search Quorlent region:south west catering');
    expect(titlesIn(answer)).toEqual(['Quorlent school catering, South West']);
    expect(textOf(answer)).toContain('Read `region:south west` as `region:\\"South West\\"`');
    // Hyphenated, and before the words: the same region.
    const hyphen = await command('search region:south-west Quorlent');
    expect(titlesIn(hyphen)).toEqual(['Quorlent school catering, South West']);
    expect(textOf(hyphen)).toContain('Read `region:south-west` as `region:\\"South West\\"`');
  });

  it('a misspelt region: “Did you mean”, and a button that searches again in the region meant, in place', async () => {
    const answer = await command('search Quorlent region:Walse');
    expect(titlesIn(answer)).toEqual([]);
    expect(textOf(answer)).toContain('Did you mean `region:\\"Wales\\"`?');
    expect(hasButton(answer, SuggestionIds.searchMeant)).toBe(true);
    await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.searchMeant);
    await eventually(
      () => titlesIn(answer).join() === 'Quorlent school catering, Wales',
      'the search drawn again in Wales',
      15_000,
    );
    expect(textOf(answer)).not.toContain('Did you mean');
  });

  it('a misspelt word and a misspelt region: one button, which searches with both corrected', async () => {
    // The service reads its vocabulary again in the background once records are written: asked
    // directly until it knows the word this file wrote, the search below does not depend on order.
    await serviceSuggests('Qourlent', 'quorlent');
    const answer = await command('search Qourlent region:Walse');
    expect(titlesIn(answer)).toEqual([]);
    expect(textOf(answer)).toContain('Did you mean *quorlent*?');
    expect(textOf(answer)).toContain('Did you mean `region:\\"Wales\\"`?');
    const buttons = JSON.stringify(answer.blocks).match(
      new RegExp(`"action_id":"${SuggestionIds.searchMeant}"`, 'g'),
    );
    expect(buttons).toHaveLength(1);
    expect(textOf(answer)).toContain('Search quorlent in Wales');
    await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.searchMeant);
    await eventually(
      () => titlesIn(answer).join() === 'Quorlent school catering, Wales',
      'the search drawn again with both corrected',
      15_000,
    );
  });

  it('a misspelt word in a region the data does not have: the corrected words in every region, said on the button', async () => {
    await serviceSuggests('Qourlent', 'quorlent');
    const answer = await command('search Qourlent region:Atlantis');
    expect(textOf(answer)).toContain('Tenderbot knows no region called “Atlantis”');
    expect(textOf(answer)).toContain('Search quorlent in every region');
    await bot.slack.clickInMessage(MEMBER, answer, SuggestionIds.searchMeant);
    await eventually(() => titlesIn(answer).length === 3, 'the corrected words searched everywhere', 15_000);
    expect(titlesIn(answer).every((title) => title.startsWith('Quorlent school catering'))).toBe(true);
  });

  it('says how the region was read when nothing is found, too', async () => {
    const answer = await command('search zzqqxxy region:south west');
    expect(titlesIn(answer)).toEqual([]);
    expect(textOf(answer)).toContain('Read `region:south west` as `region:\\"South West\\"`');
  });

  it('a feed subscribed with such a region follows the region read, and its confirmation says how it was read', async () => {
    const confirmation = await command('subscribe search Quorlent region:south west catering daily 03:16');
    const text = textOf(confirmation);
    expect(text).toContain('subscribed this channel');
    // What the feed follows, as stored: the region read, and the words without its second word.
    expect(text).toContain('New tenders for “Quorlent catering”, in South West');
    expect(text).toContain('Read `region:south west` as `region:\\"South West\\"`');
    // Quoted, nothing was read otherwise: nothing said. (Daily at a quiet time: no post during the file.)
    const quoted = await command('subscribe search Quorlent region:"Wales" daily 03:17');
    expect(textOf(quoted)).toContain('subscribed this channel');
    expect(textOf(quoted)).not.toContain('Read `region:');
  });

  it('a region the data names as typed is taken as it is, and the words after it are searched', async () => {
    const answer = await command('search region:wales Quorlent');
    expect(titlesIn(answer)).toEqual(['Quorlent school catering, Wales']);
    expect(textOf(answer)).not.toContain('Read `region:');
    // Last, not read against the regions: the heading still says it as the data spells it.
    const last = await command('search Quorlent region:wales');
    expect(titlesIn(last)).toEqual(['Quorlent school catering, Wales']);
    expect(textOf(last)).toContain('in Wales');
    expect(textOf(last)).not.toContain('in wales');
  });
});

describe('direct messages written as sentences', () => {
  it('“Quorlent school catering in Wales”: the command shown first, and the region really applied', async () => {
    const answer = await directMessage('Quorlent school catering in Wales');
    const first = JSON.stringify(answer.blocks?.[0]);
    expect(first).toContain('Searched: `/tender search Quorlent school catering region:\\"Wales\\"`');
    expect(titlesIn(answer)).toEqual(['Quorlent school catering, Wales']);
    // Without the region both are found: the filter, not the words, left Scotland's out.
    expect(await serviceTotal({ q: 'Quorlent school catering' })).toBe(3);
    const words = await directMessage('Quorlent school catering');
    expect(titlesIn(words).sort()).toEqual([
      'Quorlent school catering, Scotland',
      'Quorlent school catering, South West',
      'Quorlent school catering, Wales',
    ]);
    // Nothing to read as a filter: searched as words, as typed, with no command shown.
    expect(textOf(words)).not.toContain('Searched:');
  });

  it('“snow removal over £1m”: an amount becomes a value filter, with the currency rule in the heading', async () => {
    const answer = await directMessage('snow removal over £1m');
    expect(JSON.stringify(answer.blocks?.[0])).toContain(
      'Searched: `/tender search snow removal value&gt;1m`',
    );
    expect(textOf(answer)).toContain(
      'worth £1,000,000 or more; amounts in other currencies converted at the ECB rates of 2024-12-31',
    );
    expect(titlesIn(answer).sort()).toEqual([
      'Snow removal, depot cad-2000000',
      'Snow removal, depot eur-1300000',
      'Snow removal, depot gbp-1000000',
    ]);
  });
});

describe('money in its own currency', () => {
  it('`value>1m` is headed by the rule the service applied and lists only what passes it converted', async () => {
    const answer = await command('search snow removal value>1m');
    expect(textOf(answer)).toContain(
      'Tenders matching “snow removal”, worth £1,000,000 or more; amounts in other currencies converted at the ECB rates of 2024-12-31',
    );
    expect(titlesIn(answer)).not.toContain('Snow removal, depot cad-1048640');
    expect(titlesIn(answer).sort()).toEqual([
      'Snow removal, depot cad-2000000',
      'Snow removal, depot eur-1300000',
      'Snow removal, depot gbp-1000000',
    ]);
    // Each card says its currency.
    expect(textOf(answer)).toContain('CA$2,000,000');
    expect(textOf(answer)).toContain('€1,300,000');
    expect(textOf(answer)).toContain('£1,000,000');
  });

  it('`value>1m cad` compares in Canadian dollars, and says so', async () => {
    const answer = await command('search snow removal value>1m cad');
    expect(textOf(answer)).toContain('worth CA$1,000,000 or more; amounts in other currencies converted');
    expect(titlesIn(answer)).toContain('Snow removal, depot cad-1048640');
    expect(titlesIn(answer)).not.toContain('Snow removal, depot eur-90000');
  });
});

describe('references as printed', () => {
  it('`/tender show <printed reference>` opens the same tender as its id, and so does a message naming it', async () => {
    const byId = await command(`show ${PRINTED_OCID}`);
    const byReference = await command(`show ${PRINTED}`);
    expect(byId.text).toBe('Canine control of the geese');
    expect(byReference.text).toBe(byId.text);
    expect(JSON.stringify(byReference.blocks)).toContain(PRINTED_OCID);
    const bySourceNumber = await command('show 14-2015');
    expect(bySourceNumber.text).toBe(byId.text);
    const inMessage = await directMessage(`what about ${PRINTED}?`);
    expect(inMessage.text).toBe('Canine control of the geese');
  });

  it('a Contracts Finder notice id, as its pages print it, shows its tender, in any letter case', async () => {
    const byId = await command(`show ${CF_OCID}`);
    expect(byId.text).toBe('Quayside lighting renewal');
    expect((await command(`show ${CF_NOTICE}`)).text).toBe(byId.text);
    expect((await command(`show ${CF_NOTICE.toUpperCase()}`)).text).toBe(byId.text);
    // Its card says the currency of its value.
    expect(textOf(byId)).toContain('£85,000');
  });

  it('a reference no tender has is said plainly', async () => {
    const answer = await command('show ZZ-99-00000000');
    expect(textOf(answer)).toContain('No tender has the id or reference `ZZ-99-00000000`');
  });
});

/** Which SNOW tenders pass `over AMOUNT` in `currency`, converted by the rule the service states. */
function snowOver(amount: number, currency: keyof typeof EURO_REFERENCE_RATES): string[] {
  return SNOW.filter(
    ([, value, own]) =>
      (value / EURO_REFERENCE_RATES[own as keyof typeof EURO_REFERENCE_RATES]) *
        EURO_REFERENCE_RATES[currency] >=
      amount,
  )
    .map(([suffix]) => `Snow removal, depot ${suffix}`)
    .sort();
}

/** Opens the search form (the global shortcut) and submits it; the hint and the results in DMs. */
async function submitSearchForm(values: Record<string, string>): Promise<[FakeMessage, FakeMessage]> {
  await bot.slack.globalShortcut(MEMBER, ReachIds.searchShortcut);
  const modal = await eventually(
    () =>
      bot.slack
        .openModals(MEMBER)
        .find((view) => JSON.stringify(view.view.blocks).includes(SEARCH_BUILDER_FIELDS.currency.block)),
    'the search form with its currency',
  );
  const dm = bot.slack.dmOf(MEMBER);
  const before = bot.slack.messagesIn(dm).length;
  const submitted = await bot.slack.submitView(MEMBER, modal.id, values);
  expect(submitted.status).toBe(200);
  expect(submitted.json?.response_action).toBeUndefined();
  const [hint, results] = await eventually(() => {
    const posted = bot.slack.messagesIn(dm).slice(before);
    return posted.length >= 2 ? posted : undefined;
  }, 'the hint and the results');
  return [hint as FakeMessage, results as FakeMessage];
}

describe('the search form’s values follow the same currency rule as a typed search', () => {
  it('pounds unless another currency is chosen: the command shown, its heading and what passes converted', async () => {
    const [poundHint, pounds] = await submitSearchForm({
      [SEARCH_BUILDER_FIELDS.words.action]: 'snow removal',
      [SEARCH_BUILDER_FIELDS.valueMin.action]: '1m',
    });
    expect(textOf(poundHint)).toContain('`/tender search snow removal value&gt;=1m`');
    expect(textOf(pounds)).toContain(
      `worth £1,000,000 or more; amounts in other currencies converted at the ECB rates of ${REFERENCE_RATES_DATE}`,
    );
    expect(titlesIn(pounds).sort()).toEqual(snowOver(1_000_000, 'GBP'));
    expect(titlesIn(pounds)).not.toContain('Snow removal, depot cad-1048640');

    const [cadHint, dollars] = await submitSearchForm({
      [SEARCH_BUILDER_FIELDS.words.action]: 'snow removal',
      [SEARCH_BUILDER_FIELDS.valueMin.action]: '1m',
      [SEARCH_BUILDER_FIELDS.currency.action]: 'CAD',
    });
    expect(textOf(cadHint)).toContain('`/tender search snow removal value&gt;=1m currency:cad`');
    expect(textOf(dollars)).toContain('worth CA$1,000,000 or more; amounts in other currencies converted');
    expect(titlesIn(dollars).sort()).toEqual(snowOver(1_000_000, 'CAD'));
    expect(titlesIn(dollars)).toContain('Snow removal, depot cad-1048640');
    // The same answer as the command typed in a channel (where a card also offers Share in channel).
    const typed = await command('search snow removal value>=1m currency:cad');
    expect(withoutShare(typed.blocks)).toEqual(dollars.blocks);
  });
});

describe('odd input gets a clear sentence, never a crash', () => {
  it.each([
    ['search snow value>1m currency:xyz', '`currency:xyz` is not a currency amounts can be given in'],
    ['search snow value>-5', '`value&gt;-5`: a value is never below zero'],
    ['search snow value>1e400', '`value&gt;1e400` needs an amount'],
    ['search snow value>999999999999b', 'is more than a search takes'],
    ['search snow value>0.001', 'is finer than a penny or cent'],
    [`search snow value>${'9'.repeat(400)}`, `\`value&gt;${'9'.repeat(40)}…\` needs an amount`],
  ])('`/tender %s`', async (text, sentence) => {
    const answer = await command(text);
    expect(textOf(answer)).toContain(sentence);
    expect(textOf(answer)).not.toContain('went wrong');
  });

  it('a reference with markup characters is said back escaped, not run as markup', async () => {
    const answer = await command('show <!channel>*PW-24*_~`&');
    const said = textOf(answer);
    expect(said).toContain('No tender has the id or reference');
    expect(said).not.toContain('<!channel>');
    expect(said).toContain('&lt;!channel&gt;');
  });

  it('a sentence naming two currencies is refused with a sentence, not read as one currency', async () => {
    const answer = await directMessage('snow removal over €2m under £3m');
    expect(textOf(answer)).toContain(
      'The amounts are in euros and pounds; a search compares values in one currency.',
    );
    expect(titlesIn(answer)).toEqual([]);
  });

  it('a sentence far longer than a search takes is read, and the cut is said', async () => {
    const long = `snow removal over £1m ${'in the far north of the county '.repeat(300)}`;
    const answer = await directMessage(long);
    const said = textOf(answer);
    expect(said).not.toContain('went wrong');
    expect(said.length).toBeLessThan(40_000);
    expect(said).toMatch(/Only the first \d+ characters of the words were searched|Found no tenders/);
  });
});
