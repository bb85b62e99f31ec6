/*
 * What `/tender subscribe` reads from its words and offers when they are not what it takes: the
 * cadence and time at the end (readSchedule, the command's own reader), the command most likely
 * meant when the kind is missing or misspelt, and the feed meant when its words are misspelt.
 */
import { cutText } from '../../../shared/cut-text.ts';
import { editDistance } from '../../shared/commands/edit-distance.ts';
import { code, joinMrkdwn, type Mrkdwn, mrkdwn, text as plain, safeText } from '../../shared/views/mrkdwn.ts';
import type { Message } from '../../shared/views/safe-blocks.ts';
import { commandOffer } from '../../shared/views/suggestions.ts';
import { section } from '../../shared/views/tender-card.ts';
import type { Cadence, SubscriptionKind } from '../../storage/bot-store.ts';
import { DEFAULT_TIME, parseLocalTime } from './schedule.ts';

// Slack reads `<…>` as a link or a mention even inside code: the placeholders are escaped.
export const SUBSCRIBE_USAGE = mrkdwn`Subscribe this channel with \`/tender subscribe pipeline &lt;bid&gt; [daily|weekly] [HH:MM]\` (a bid’s progress), \`/tender subscribe search &lt;saved search id, or words and filters&gt; [hourly|daily]\` (new tenders), or \`/tender subscribe deadlines [days]\` (bookmarked tenders and bids coming due). Times are in your own time zone; weekly posts go out on Mondays.`;

/**
 * One kind's usage, said after a mistake in a subscription of that kind (the whole usage, three
 * commands long, would bury the one line that matters).
 */
export const USAGE_OF: Record<SubscriptionKind, Mrkdwn> = {
  pipeline: mrkdwn`A bid’s progress: \`/tender subscribe pipeline &lt;bid&gt; [daily|weekly] [HH:MM]\`, as in \`/tender subscribe pipeline BID-7 weekly 09:00\` (weekly posts go out on Mondays; \`/tender pipelines\` lists your bids).`,
  search: mrkdwn`New tenders: \`/tender subscribe search &lt;saved search id, or words and filters&gt; [hourly|daily]\`, as in \`/tender subscribe search cleaning region:"Wales" daily 09:00\` (\`/tender saved\` lists the saved searches).`,
  deadlines: mrkdwn`Bookmarked tenders and bids coming due: \`/tender subscribe deadlines [days] [HH:MM]\`, as in \`/tender subscribe deadlines 14\` (7 days unless you say, at most 90).`,
};

const SUBSCRIPTION_KINDS = ['pipeline', 'search', 'deadlines'] as const;

/** What each kind of subscription needs after it, said when a corrected kind has nothing after it. */
const KIND_NEEDS: Record<SubscriptionKind, string | null> = {
  pipeline: 'a bid (its id, or BID-3)',
  search: 'a saved search’s id, or words and filters',
  deadlines: null,
};

/**
 * `/tender subscribe` with no kind of subscription first: the one most likely meant, offered as a
 * button that runs it, with the usage under it. A kind misspelt by one letter, or two swapped
 * (`serach`), is corrected; a bid's reference (`BID-3`, maybe with a cadence or a time) is its
 * bid's summary; any other words are a new-tender feed of those words (`/tender subscribe cleaning
 * in Wales`), as words typed after `/tender` alone are a search. A kind corrected that still lacks
 * what it needs is named, with no button: pressed, it would only be refused.
 */
export function subscribeMeantMessage(typed: string): Message {
  const [first = '', ...others] = typed.split(/\s+/).filter(Boolean);
  const usage = section(SUBSCRIBE_USAGE);
  if (!first) return { text: SUBSCRIBE_USAGE, blocks: [usage] };
  const word = first.toLowerCase();
  const corrected = /^[a-z]{3,}$/.test(word)
    ? SUBSCRIPTION_KINDS.find((kind) => editDistance(word, kind) === 1)
    : undefined;
  const asBid = /^bid-?\d{1,9}$/i.test(first) ? readMeant('pipeline', [first, ...others]) : null;
  const [kind, rest] = corrected
    ? [corrected, others]
    : asBid && (asBid.usable || asBid.problem)
      ? (['pipeline', [first, ...others]] as const)
      : (['search', [first, ...others]] as const);
  const meant = readMeant(kind, rest);
  const typedCode = code(`/tender subscribe ${cutText(typed, 60)}`);
  const needs = KIND_NEEDS[kind];
  // A kind corrected with nothing it needs after it (`serach`, `pipline weekly`): named, no button.
  if (corrected && needs && meant.left.length === 0) {
    const question = mrkdwn`${typedCode} does not say what to subscribe to. Did you mean ${code(`/tender subscribe ${corrected}`)}, followed by ${plain(needs)}?`;
    return { text: question, blocks: [section(question), usage] };
  }
  const command = [`subscribe ${kind}`, ...rest].join(' ');
  const question = mrkdwn`${typedCode} does not say what to subscribe to. Did you mean ${code(`/tender ${command}`, 300)}?`;
  // Pressed, a command Tenderbot would refuse (`25:00`, two bids) only refuses: said, with no button.
  if (!meant.usable) {
    const said = joinMrkdwn([question, ...(meant.problem ? [meant.problem] : [])], mrkdwn` `);
    return { text: said, blocks: [section(said), ...(meant.problem ? [] : [usage])] };
  }
  return {
    text: question,
    blocks: [...commandOffer(question, `Run /tender ${cutText(command, 50)}`, command), usage],
  };
}

/** A subscription's words read as `/tender subscribe` reads them: what is left, and whether it would be taken. */
function readMeant(
  kind: SubscriptionKind,
  words: readonly string[],
): { left: string[]; usable: boolean; problem: Mrkdwn | null } {
  const left = [...words];
  const schedule = readSchedule(kind, left);
  if ('problem' in schedule) return { left, usable: false, problem: schedule.problem };
  return { left, usable: takesWords(kind, left), problem: null };
}

/**
 * A word meant as a time of day that is not one Tenderbot reads (`25:00`, `9am`, `9.30`): said,
 * rather than searched for as a word (a feed of "cleaning 25:00" would never post anything).
 */
// A colon is a time however wrong (`25:00`, `9:5`); a dot or an h only with two-digit minutes
// (`9.30`, `9h30`: `lot 2.1` is a search word); am/pm with or without minutes (`9am`, `5:30pm`).
const TIME_LIKE = /^(\d{1,2}:\d{1,2}|\d{1,2}[.h]\d{2}|\d{1,2}([:.h]\d{2})?(am|pm))$/i;

/** The 24-hour form of `9am`, `5:30pm`, `9.30` or `9h30`, to suggest; null when there is none. */
function twentyFourHour(text: string): string | null {
  const match = /^(\d{1,2})(?:[:.h](\d{2}))?(am|pm)?$/i.exec(text);
  if (!match) return null;
  let hour = Number(match[1]);
  const minute = match[2] ?? '00';
  if (Number(minute) > 59) return null;
  if (match[3]) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (match[3].toLowerCase() === 'pm' ? 12 : 0);
  } else if (!match[2] || hour > 23) return null;
  return `${String(hour).padStart(2, '0')}:${minute}`;
}

/** Words meant as how often, read as such: Tenderbot's cadences, and others it says it does not offer. */
const CADENCE_WORDS: readonly string[] = [
  'hourly',
  'daily',
  'weekly',
  'fortnightly',
  'biweekly',
  'monthly',
  'quarterly',
  'yearly',
  'annually',
];

/** Cadences each kind accepts, the first being its default. */
const CADENCES_OF: Record<SubscriptionKind, Cadence[]> = {
  pipeline: ['daily', 'weekly'],
  search: ['daily', 'hourly'],
  deadlines: ['daily'],
};

/**
 * The cadence word and the time at the end of a subscription (`daily 09:30`), read from the end so
 * that search words stay as typed: what is left of `words` (changed in place), or the sentence
 * saying why a word meant as one cannot be read.
 */
export function readSchedule(
  kind: SubscriptionKind,
  words: string[],
): { cadence: Cadence; localTime: string } | { problem: Mrkdwn } {
  let cadence: Cadence = CADENCES_OF[kind][0] as Cadence;
  let localTime = DEFAULT_TIME;
  for (let taken = 0; taken < 2 && words.length > 0; taken++) {
    const last = (words.at(-1) as string).toLowerCase();
    const time = parseLocalTime(last);
    if (time) localTime = time;
    else if (TIME_LIKE.test(last)) {
      const suggestion = twentyFourHour(last);
      return {
        problem: mrkdwn`“${safeText(last, 20)}” is not a time Tenderbot can read. Give the time as HH:MM on the 24-hour clock${suggestion ? mrkdwn`: ${code(suggestion)}` : mrkdwn`, for example \`09:00\` or \`17:30\``}. Times are in your own time zone. ${USAGE_OF[kind]}`,
      };
    } else if (CADENCE_WORDS.includes(last)) {
      if (!(CADENCES_OF[kind] as string[]).includes(last))
        return {
          problem: mrkdwn`A ${plain(kind === 'search' ? 'new-tender feed' : kind === 'pipeline' ? 'bid summary' : 'deadline reminder')} can be ${plain(CADENCES_OF[kind].join(' or '))}, not ${plain(last)}. ${USAGE_OF[kind]}`,
        };
      cadence = last as Cadence;
    } else break;
    words.pop();
  }
  return { cadence, localTime };
}

/** Whether what is left after the schedule is what the kind takes: one bid, some words, a number of days or none. */
function takesWords(kind: SubscriptionKind, words: readonly string[]): boolean {
  if (kind === 'pipeline') return words.length === 1;
  if (kind === 'search') return words.length > 0;
  const days = words.length === 1 ? Number(words[0]) : words.length === 0 ? 7 : Number.NaN;
  return Number.isInteger(days) && days >= 1 && days <= 90;
}

/**
 * `/tender subscribe search catring`: no tender matches the words today and the data knows the
 * word meant, so the feed is offered with it, one click away; quoted words are followed as typed.
 */
export function misspeltFeedMessage(words: string, wordsMeant: string | null, command: string): Message {
  const question = mrkdwn`No tender matches “${safeText(words, 200)}” today, so that feed would post nothing. Did you mean *${safeText(wordsMeant ?? words, 200)}*? To follow the words as typed, put them in quotes (${code('/tender subscribe search "…"')}).`;
  return {
    text: question,
    blocks: commandOffer(question, `Run /tender subscribe ${cutText(command, 40)}`, `subscribe ${command}`),
  };
}
