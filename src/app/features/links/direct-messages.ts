import type { AppSlack, RespondMessage } from '../../adapters/app-slack.ts';
import { tidiedWords } from '../../shared/commands/read-sentence.ts';
import { parseCommand, subcommandMeant } from '../../shared/commands/subcommands.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { reply, withFailures } from '../../shared/feature-context.ts';
import { helpMessage, sentenceMessage } from '../../shared/views/messages.ts';
import { mrkdwn } from '../../shared/views/mrkdwn.ts';
import { commandMeantMessage } from '../../shared/views/suggestions.ts';
import { searchCommand, searchSentence, showCommand, tenderByReference } from '../tenders/index.ts';
import { firstTender, printedReferencesIn } from './find-tender.ts';
import { noticeRefsInText } from './notice-links.ts';

/**
 * A SlackRequest whose answers go to the person's direct messages with Tenderbot: the first answer is
 * posted, an answer that replaces (after "still trying…") updates the last message posted. Used
 * where Slack gives no response_url: a direct message, a global shortcut, a modal submission.
 */
export function directMessageRequest(
  slack: AppSlack,
  args: { teamId: string; userId: string; channelId?: string },
): SlackRequest {
  // Posting to the person's user id opens (or reuses) the direct message with the app.
  const target = args.channelId ?? args.userId;
  let last: { channel: string; ts: string } | null = null;
  const respond = async (answer: RespondMessage) => {
    const { text, blocks } = answer;
    if (answer.replace_original && last) {
      await slack.chat.update({ channel: last.channel, ts: last.ts, text, ...(blocks ? { blocks } : {}) });
      return;
    }
    const posted = await slack.chat.postMessage({
      channel: target,
      text,
      ...(blocks ? { blocks } : {}),
      unfurl_links: false,
    });
    if (posted.channel && posted.ts) last = { channel: posted.channel, ts: posted.ts };
  };
  return {
    teamId: args.teamId,
    userId: args.userId,
    channelId: args.channelId ?? '',
    respond,
    slack,
    kind: 'command',
  };
}

/** What a direct message asks for: help, a tender (a notice link or id), or a search. */
export type DirectMessageIntent =
  | { kind: 'help' }
  /** "thanks!", "great 👍": said to Tenderbot, not searched for. */
  | { kind: 'thanks' }
  | { kind: 'tender'; text: string }
  | { kind: 'search'; text: string }
  | { kind: 'command'; text: string }
  /** `/tender serach cleaning`: a mistyped subcommand, and the one it most likely meant. */
  | { kind: 'meant'; typed: string; meant: string; rest: string }
  | { kind: 'nothing' };

/**
 * Greetings and questions about Tenderbot itself ("hi", "what can you do?"): answered with help,
 * not searched for (no tender matches "what can you do").
 */
const SMALL_TALK_ASKING =
  /^(?:(?:hi|hello|hey|good\s+(?:morning|afternoon|evening))(?:\s+(?:there|tenderbot))?[\s,.!]*)?(?:help(?:\s+me)?|\?|hi|hello|hey|good\s+(?:morning|afternoon|evening)|what\s+(?:can|do)\s+you\s+do|what\s+are\s+you|who\s+are\s+you|how\s+(?:does\s+(?:this|it)\s+work|do\s+i\s+use\s+(?:this|you|it|tenderbot)))(?:\s+(?:there|tenderbot))?[\s.!?]*$/i;

/** An emoji as typed (with its skin tone and joiners), or as Slack sends it: its short name between colons. */
const EMOJI = String.raw`(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0f|:[a-z0-9_+'-]+:)`;

/**
 * Thanks, with an approval before it and emoji after ("thanks!", "great, thank you 🙏", "cheers
 * :pray:"), or emoji alone ("👍🏽", ":+1:"). Whole words only: "Tata", "Okta" and "NICE" are
 * searched, and an approval alone ("ok", "nice") is no thanks.
 */
const SMALL_TALK_THANKS = new RegExp(
  String.raw`^(?:(?:ok(?:ay)?|great|perfect|brilliant|lovely|awesome|cool|nice)[\s,.!]+)?(?:thanks|thank\s+you|thx|ty|cheers|many\s+thanks|much\s+appreciated)(?:\s+(?:very\s+much|so\s+much|a\s+lot|again|tenderbot))?[\s,.!]*(?:${EMOJI}[\s]*)*$|^(?:\s|${EMOJI})+$`,
  'iu',
);

/** The commands a direct message runs as typed (those that need a channel, or a window, do not). */
const DIRECT_MESSAGE_COMMANDS: readonly string[] = [
  'show',
  'bookmarks',
  'buyers',
  'suppliers',
  'frameworks',
  'saved',
  'pipelines',
  'pipeline',
  'comments',
  'status',
];

/** Runs a `/tender …` text for a person (register-listeners.ts passes its command router). */
export type RunCommandText = (request: SlackRequest, text: string) => Promise<void>;

/**
 * Reads a direct message: `help` (or `/tender help`, `?`), a message naming a tender by link or id,
 * else its words as a search (`search …` and `/tender search …` are the same).
 */
export function directMessageIntent(raw: string, origins: readonly string[] = []): DirectMessageIntent {
  const text = directMessageText(raw);
  if (!text) return { kind: 'nothing' };
  if (SMALL_TALK_ASKING.test(text)) return { kind: 'help' };
  if (SMALL_TALK_THANKS.test(text)) return { kind: 'thanks' };
  if (noticeRefsInText(raw, origins).length > 0) return { kind: 'tender', text: raw };
  // As people ask: "show me my bids", "my bookmarks" are the command; "show me cleaning in Wales" a search.
  const asked = askedFor(text) ?? shownFor(text);
  if (asked) {
    if (DIRECT_MESSAGE_COMMANDS.includes(parseCommand(asked.rest).kind))
      return { kind: 'command', text: asked.rest };
    // "can you find me cleaning tenders?": `cleaning`, as a question's asking is no search word.
    if (asked.showMe) return { kind: 'search', text: tidiedWords(asked.rest) || asked.rest };
  }
  const parsed = parseCommand(text);
  if (parsed.kind === 'help') return { kind: 'help' };
  if (parsed.kind === 'search') return { kind: 'search', text: parsed.rest };
  // `bookmarks`, `buyers leeds`, `show ocds-…`: the command itself, but only as its first word.
  if (DIRECT_MESSAGE_COMMANDS.includes(parsed.kind)) return { kind: 'command', text };
  // Written as a command (`/tender serach …`), a mistyped subcommand is one; otherwise words.
  if (parsed.kind === 'unknown' && /^\s*\/tender\b/i.test(raw)) {
    const meant = subcommandMeant(parsed.word);
    if (meant) return { kind: 'meant', typed: parsed.word, meant, rest: parsed.rest };
  }
  return { kind: 'search', text };
}

/**
 * The words after how a request begins ("show me", "list my", "my"), and whether it began with a
 * verb ("show me", "list": then the rest is a search, whatever it is); null when it begins otherwise.
 */
function askedFor(text: string): { rest: string; showMe: boolean } | null {
  // A request is a few words: a long message is no command (and its courtesies are not looked for,
  // whose pattern at the end of thousands of commas and spaces took seconds).
  if (text.length > LONGEST_REQUEST) return null;
  const found =
    /^(?:(?:hi|hello|hey)\b[\s,.!]*)?(?:(?:please|pls|can\s+you|could\s+you|would\s+you)\s+)?(?:((?:show|give|find|get)\s+me|list|what\s+are)\s+)?(?:(?:all\s+)?(?:my|our)\s+)?/i.exec(
      text,
    );
  const lead = found?.[0] ?? '';
  // "…my bookmarks please", "…my bids, thanks a lot!", "… – cheers 🙏": the courtesy is no part of what is asked for.
  let rest = text.slice(lead.length).trim();
  for (let before = ''; before !== rest; ) {
    before = rest;
    rest = rest.replace(COURTESY_AT_END, '').trim();
  }
  if (!lead || !rest) return null;
  return { rest, showMe: Boolean(found?.[1]) };
}

/**
 * "show my bookmarks", "show bids", "show cleaning tenders": `show` without "me" is the show command
 * only before what names one tender (an id, a reference such as TB-0000421 or BID-7: one word with a
 * digit); before anything else it is asked as "show me" is.
 */
function shownFor(text: string): { rest: string; showMe: boolean } | null {
  const rest = /^show\s+(?!me\b)(.+)$/i.exec(text)?.[1]?.trim();
  if (!rest || /^\S*\d\S*$/.test(rest)) return null;
  const mine = /^(?:(?:all\s+)?(?:my|our)\s+)?(.+)$/i.exec(rest)?.[1] ?? rest;
  return askedFor(`show me ${mine}`);
}

/** The longest direct message read as a request ("can you show me all my bookmarks please, thanks a lot"). */
const LONGEST_REQUEST = 200;

/** A courtesy (or an emoji, a smile) ending a request, with the punctuation around it; taken off one at a time. */
const COURTESY_AT_END =
  /(?:^|[\s,.!?;:–—-]+)(?:please|pls|plz|thanks(?:\s+(?:a\s+lot|so\s+much))?|thank\s+you(?:\s+(?:very\s+much|so\s+much))?|many\s+thanks|thx|ty|cheers|ta|:-?\)|:[a-z0-9_+-]+:|\p{Extended_Pictographic}\uFE0F?)?[\s.!?;:–—-]*$/iu;

/** A direct message's text as a command's: without `/tender`, Slack's entities read back. */
function directMessageText(raw: string): string {
  return raw
    .replace(/^\s*\/?tender\b/i, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

/** Whether a direct message's search was typed as one (`search …`), not written as a sentence. */
function typedAsSearch(raw: string): boolean {
  return parseCommand(directMessageText(raw)).kind === 'search';
}

/** A direct message to Tenderbot: answered in the same conversation with cards (or help). */
export async function answerDirectMessage(
  context: FeatureContext,
  slack: AppSlack,
  message: { teamId: string; userId: string; channelId: string; text: string },
  runCommandText?: RunCommandText,
): Promise<void> {
  const request = directMessageRequest(slack, message);
  const intent = directMessageIntent(message.text, serviceOrigins(context));
  if (intent.kind === 'nothing') return;
  if (intent.kind === 'command') {
    // The router has its own failure handling; without one, the words are searched.
    if (runCommandText) return runCommandText(request, intent.text);
  }
  if (intent.kind === 'help') {
    await reply(request, helpMessage());
    return;
  }
  if (intent.kind === 'thanks') {
    await reply(
      request,
      sentenceMessage(
        mrkdwn`Glad to help. Message me a search whenever you need one, such as “catering in Wales over £100k”, or \`help\` for everything I do.`,
      ),
    );
    return;
  }
  if (intent.kind === 'meant') {
    await reply(request, commandMeantMessage(intent.typed, intent.meant, intent.rest));
    return;
  }
  const retry = intent.kind !== 'tender' ? `search ${intent.text}` : null;
  await withFailures(context, request, `direct message ${intent.kind}`, retry, async (guarded) => {
    if (intent.kind === 'search' && !typedAsSearch(message.text))
      return answerSentence(context, guarded, intent.text);
    if (intent.kind !== 'tender') return searchCommand(context, guarded, intent.text);
    const { client } = await context.clients.forTeam(message.teamId);
    const found = await firstTender(client, noticeRefsInText(intent.text, serviceOrigins(context)));
    if (found) return showCommand(context, guarded, found.tender.id);
    const sentence = mrkdwn`Tenderbot does not hold the tender that message names (it may not be imported yet). Search for it with words from its title.`;
    await reply(guarded, sentenceMessage(sentence));
  });
}

/** How many printed references of one message are looked up (each is a request). */
const REFERENCES_LOOKED_UP = 3;

/**
 * A direct message written as people write: a printed reference in it (`PW-14-00627094`) opens
 * its tender; else a sentence is read as filters and words, and the answer first shows the command
 * it ran; a phrase with nothing to read as a filter is searched as words, as typed (what a question
 * asks for, when it begins as one: searchSentence).
 */
async function answerSentence(context: FeatureContext, request: SlackRequest, text: string): Promise<void> {
  for (const reference of printedReferencesIn(text).slice(0, REFERENCES_LOOKED_UP)) {
    const found = await tenderByReference(context, request, reference);
    if (found.kind === 'one') return showCommand(context, request, found.tender.id);
    if (found.kind === 'several') return showCommand(context, request, reference);
  }
  return searchSentence(context, request, text);
}

/** The service's own origins, whose `/v1/tenders/<id>` links name a tender. */
export function serviceOrigins(context: FeatureContext): string[] {
  return [context.config.PROCUREMENT_API_URL];
}

/** What a pointer to an answer sent to direct messages says. */
export const DIRECT_MESSAGES_POINTER = mrkdwn`:incoming_envelope: The answer is in your direct messages with Tenderbot (*Tenderbot* › *Messages*).`;

/**
 * Leaves one line, to the person alone, where they asked (a channel, not a direct message): the
 * answer went to their direct messages. A failure to leave it is logged, never said.
 */
export async function leavePointerToDirectMessages(
  context: Pick<FeatureContext, 'logger'>,
  slack: AppSlack,
  args: { channelId: string; userId: string },
): Promise<void> {
  if (!args.channelId || args.channelId.startsWith('D')) return;
  await slack.chat
    .postEphemeral({ channel: args.channelId, user: args.userId, text: DIRECT_MESSAGES_POINTER })
    .catch((error: unknown) =>
      context.logger.warn(
        { err: error, channel: args.channelId },
        'could not leave the pointer to direct messages',
      ),
    );
}
