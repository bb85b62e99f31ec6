import type { Tender } from '../../../../contract/schemas.ts';
import { SavedSearchIds } from '../../../shared/ids.ts';
import { formatMoneyInline } from '../../../shared/views/formats.ts';
import type { Message } from '../../../shared/views/messages.ts';
import {
  joinMrkdwn,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
  safeText,
} from '../../../shared/views/mrkdwn.ts';
import {
  type Block,
  button,
  contextLine,
  deadlineMrkdwn,
  section,
} from '../../../shared/views/tender-card.ts';

/**
 * A saved search posted in a channel for everyone: its name, what it finds now (the first few,
 * each in a line), who posted it, and Run (each person pages through it themselves).
 */
export function savedSearchPost(args: {
  name: string;
  heading: Mrkdwn;
  tenders: readonly Tender[];
  total: number;
  savedId: string;
  postedBy: string;
  now: Date;
}): Message {
  const count = plain(`${args.total.toLocaleString('en-GB')} ${args.total === 1 ? 'tender' : 'tenders'}`);
  const text = mrkdwn`Saved search “${plain(args.name)}”: ${count}`;
  const lines = args.tenders.map(
    (tender) =>
      mrkdwn`• *${safeText(tender.title, 200)}*${tender.buyer ? mrkdwn` · ${safeText(tender.buyer.name, 100)}` : mrkdwn``} · ${deadlineMrkdwn(tender.deadline, args.now)} · value ${plain(formatMoneyInline(tender.value))}`,
  );
  const blocks: Block[] = [
    {
      ...section(mrkdwn`:mag: *${safeText(args.name, 200)}* · ${count}\n${args.heading}`),
      accessory: button('Run', SavedSearchIds.run, args.savedId, 'primary'),
    } as Block,
  ];
  if (lines.length > 0) blocks.push(section(joinMrkdwn(lines, mrkdwn`\n`)));
  blocks.push(
    contextLine(
      mrkdwn`Posted by ${mention(args.postedBy)} from the Home tab.${args.total > lines.length ? mrkdwn` *Run* shows all of them, to you alone.` : mrkdwn``}`,
    ),
  );
  return { text, blocks };
}
