/** "Did you mean …?": a word of a search that found nothing, and a mistyped subcommand. */

import type { SearchState } from '../values/button-values.ts';
import { encodeIfFits } from '../values/codec.ts';
import type { Message } from './messages.ts';
import { clip, code, type Mrkdwn, mrkdwn, safeText } from './mrkdwn.ts';
import { type Block, button, section } from './tender-card.ts';

/**
 * The buttons of a suggestion. Each has an id of its own and is answered by the listener of the
 * control that does the same thing (control-registry.ts): the search page (as Next draws it), and
 * a command's text run again (as "Try again" runs it).
 */
export const SuggestionIds = {
  searchMeant: 'search/did_you_mean',
  commandMeant: 'command/did_you_mean',
} as const;

/** A word of the search that found nothing, and the word of the data it most likely meant. */
interface WordSuggestion {
  word: string;
  correction: string;
}

/**
 * The words of a search with each suggested correction in place of the word it corrects (whole
 * words, any letter case, never inside a quoted phrase, which is matched exactly as typed); null
 * when no word changed.
 */
export function correctedWords(q: string, suggestions: readonly WordSuggestion[]): string | null {
  let changed = false;
  const corrected = q
    .split(/("[^"]*")/)
    .map((part) => {
      if (part.startsWith('"')) return part;
      let result = part;
      for (const { word, correction } of suggestions) {
        if (!word || word.toLowerCase() === correction.toLowerCase()) continue;
        const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const whole = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'giu');
        result = result.replace(whole, () => {
          changed = true;
          return correction;
        });
      }
      return result;
    })
    .join('');
  return changed ? corrected : null;
}

/** "Did you mean *cleaning*?" under a search that found nothing (the button is searchMeantButton's). */
export function wordsMeantQuestion(words: string): Block {
  return section(mrkdwn`Did you mean *${safeText(words, 300)}*?`);
}

/** What a search that found nothing most likely meant: its words, its region, or both corrected. */
export interface SearchMeant {
  words: string | null;
  region: string | null;
  /** The region is one the data does not have and none is near it: the search meant leaves it out. */
  regionUnknown?: boolean;
}

/**
 * One button that runs the search with every correction in place, from its first page: with two
 * buttons, one per correction, each kept the other mistake and found nothing again.
 */
export function searchMeantButton(
  state: SearchState,
  { words, region, regionUnknown }: SearchMeant,
): Block[] {
  if (!words && !region) return [];
  // A region nothing is near: the corrected words in every region, rather than in that one again.
  const everywhere = Boolean(words && !region && regionUnknown && state.f.region);
  const { region: _typed, ...others } = state.f;
  const filters = {
    ...(everywhere ? others : state.f),
    ...(words ? { q: words } : {}),
    ...(region ? { region } : {}),
  };
  const value = encodeIfFits('searchPage', { ...state, f: filters, o: 0 });
  if (!value) return [];
  // Slack's button label holds 75 characters.
  const label =
    words && region
      ? `Search ${clip(words, 35)} in ${clip(region, 28)}`
      : words && everywhere
        ? `Search ${clip(words, 45)} in every region`
        : words
          ? `Search ${clip(words, 60)}`
          : `Search in ${clip(region ?? '', 60)}`;
  return [{ type: 'actions', elements: [button(label, SuggestionIds.searchMeant, value, 'primary')] }];
}

/**
 * Under a `/tender search` that found nothing as words but reads as a sentence ("cleaning in
 * Wales over £100k"): the search the sentence means, with a button that runs it (as a direct
 * message reads it; in a channel the words are searched as typed first, so nothing changes
 * under a person who meant them).
 */
export function sentenceMeantBlocks(search: string): Block[] {
  const command = `search ${search}`;
  // "over $1m": a dollar sign names no currency, and the search would only ask which: each dollar
  // is offered instead, one button each (a block holds an action id once).
  if (namesNoDollar(search)) {
    const offers = DOLLARS.map(([currency, name]) => {
      const inCurrency = `search ${search.replace(DOLLAR_BOUNDS, `$1$2 ${currency}`)}`;
      return {
        type: 'actions' as const,
        elements: [button(`In ${name}`, SuggestionIds.commandMeant, inCurrency)],
      };
    });
    return [
      section(
        mrkdwn`Read as a sentence, this is ${code(`/tender ${command}`, 300)}, but “$” says no currency. Which dollars?`,
      ),
      ...(command.length + 4 > 2000 ? [] : offers),
    ];
  }
  return commandOffer(
    mrkdwn`Read as a sentence, this is ${code(`/tender ${command}`, 300)}.`,
    `Run /tender ${clip(command, 50)}`,
    command,
  );
}

/** An amount in dollars with no currency named (`value>$2m`), as readSentence writes one. */
const DOLLAR_BOUND = /\bvalue[<>]=?\$\S/i;
const DOLLAR_BOUNDS = /\b(value[<>]=?)\$(\S+)/gi;

/** Whether a search read from a sentence bounds its value in dollars without saying which. */
export function namesNoDollar(search: string): boolean {
  return DOLLAR_BOUND.test(search);
}
/** The dollars a search is offered in: those the service compares amounts in (CONTRACT's currencies). */
const DOLLARS = [
  ['usd', 'US dollars'],
  ['cad', 'Canadian dollars'],
] as const;

/**
 * Under a sentence that found nothing with a region misspelt ("cleaning in Londn"): the search in
 * the region the data names nearest, with a button that runs it. A guess is offered, not made.
 */
export function misspeltRegionBlocks(
  misspelt: { typed: string; region: string; search: string },
  /** The words misspelt too, and their correction (in the search already). */
  words?: { typed: string; meant: string },
): Block[] {
  const command = `search ${misspelt.search}`;
  const meant = words
    ? mrkdwn`, and no tender matches “${safeText(words.typed, 100)}”. Did you mean *${safeText(words.meant, 100)}* in ${safeText(misspelt.region, 100)}?`
    : mrkdwn`. Did you mean ${safeText(misspelt.region, 100)}?`;
  return commandOffer(
    mrkdwn`Tenderbot knows no region called “${safeText(misspelt.typed, 100)}”${meant} That search is ${code(`/tender ${command}`, 300)}.`,
    `Search in ${clip(misspelt.region, 60)}`,
    command,
  );
}

/**
 * Under a sentence that found nothing with a closing day in numbers that could not be searched
 * ("closing 31/02/2027"): why, and how to write one. It was searched as words.
 */
export function unreadableDayBlocks(unread: {
  typed: string;
  why: 'no day' | 'passed' | 'too far';
}): Block[] {
  const typed = safeText(unread.typed, 40);
  const why =
    unread.why === 'no day'
      ? mrkdwn`“${typed}” is not a day the calendar has`
      : unread.why === 'passed'
        ? mrkdwn`“${typed}” has passed (closing days are looked for from today on)`
        : mrkdwn`“${typed}” is more than ten years ahead`;
  return [
    section(
      mrkdwn`${why}, so it was searched as words. Write a closing day as ${code('closing 12/05/2027')} (the day first) or ${code('closing 12 May 2027')}.`,
    ),
  ];
}

/**
 * A sentence naming a command, and a button that runs it: its value is the command's text, which
 * "Try again"'s listener runs; too long for a value, the sentence alone.
 */
export function commandOffer(sentence: Mrkdwn, label: string, command: string): Block[] {
  const question = section(sentence);
  if (command.length > 2000) return [question];
  return [
    question,
    { type: 'actions', elements: [button(label, SuggestionIds.commandMeant, command, 'primary')] },
  ];
}

/**
 * Above the help card of `/tender cleaning in Leeds` (a first word that is no command, nor near
 * one): the search those words make (`search`: as typed, or as the sentence reads), with a button
 * that runs it. Words typed at a search box are most often a search; the card still says what else
 * `/tender` does. Nothing is offered for text without a letter or digit, or too long for a button.
 */
export function searchOfferBlocks(typed: string, search = typed): Block[] {
  const words = typed.trim();
  const command = `search ${search.trim()}`;
  if (!/[\p{L}\p{N}]/u.test(words) || command.length > 2000) return [];
  return commandOffer(
    mrkdwn`To search tenders for these words: ${code(`/tender ${command}`, 300)}.`,
    `Search ${clip(words, 60)}`,
    command,
  );
}

/**
 * `/tender serach cleaning`: "Did you mean `/tender search`?", with a button that runs the command
 * meant with the same words when there are any.
 */
export function commandMeantMessage(typed: string, meant: string, rest: string): Message {
  const corrected = rest ? `${meant} ${rest}` : meant;
  const question: Mrkdwn = mrkdwn`${code(`/tender ${clip(typed, 60)}`)} is not a command. Did you mean ${code(`/tender ${meant}`)}?`;
  // A button only when words followed: without them the command meant is the answer to type.
  const blocks = rest
    ? commandOffer(question, `Run /tender ${clip(corrected, 50)}`, corrected)
    : [section(question)];
  blocks.push(section(mrkdwn`\`/tender help\` lists every command.`));
  return { text: question, blocks };
}
