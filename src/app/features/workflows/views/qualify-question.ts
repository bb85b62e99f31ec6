/* The message the step "Ask someone to qualify a tender" posts, before and after the answer. Pure. */
import type { Tender } from '../../../../contract/schemas.ts';
import { link, type Mrkdwn, mention, mrkdwn, safeText, text } from '../../../shared/views/mrkdwn.ts';
import type { Block, Message } from '../../../shared/views/safe-blocks.ts';
import { button, contextLine, deadlineMrkdwn, section } from '../../../shared/views/tender-card.ts';

/** The two answers, in the order of their buttons (`…/0` qualifies, `…/1` does not). */
export const QUALIFY_ANSWERS = ['qualified', 'not qualified'] as const;
export type QualifyAnswer = (typeof QUALIFY_ANSWERS)[number];

/** The tender in a line: its title linked to its notice, its buyer, deadline and id. */
function tenderLine(tender: Tender, now: Date): Mrkdwn {
  const title = safeText(tender.title, 200);
  const titled = link(tender.url, title) ?? title;
  const buyer = tender.buyer ? mrkdwn` · ${safeText(tender.buyer.name, 100)}` : mrkdwn``;
  return mrkdwn`${titled}${buyer} · ${deadlineMrkdwn(tender.deadline, now)} · ${text(tender.id)}`;
}

/** The question to the person asked, with a button for each answer (`actionPrefix/0`, `/1`). */
export function qualifyQuestion(asked: string, tender: Tender, now: Date, actionPrefix: string): Message {
  const question = mrkdwn`${mention(asked)}, does this tender qualify for a bid?`;
  const blocks: Block[] = [
    section(mrkdwn`${question}\n${tenderLine(tender, now)}`),
    {
      type: 'actions',
      elements: QUALIFY_ANSWERS.map((answer, index) =>
        button(
          index === 0 ? 'Qualified' : 'Not qualified',
          `${actionPrefix}/${index}`,
          answer,
          index === 0 ? 'primary' : undefined,
        ),
      ),
    },
    contextLine(mrkdwn`Only ${mention(asked)} can answer; the workflow goes on once they do.`),
  ];
  return { text: question, blocks };
}

/** The question once answered: who answered what about which tender, and no buttons left to click. */
export function qualifyAnswered(answeredBy: string, answer: QualifyAnswer, tenderReference: string): Message {
  const said = mrkdwn`${mention(answeredBy)} answered: tender ${safeText(tenderReference, 100)} is *${text(answer)}*.`;
  return { text: said, blocks: [section(said)] };
}
