import { createHash } from 'node:crypto';
import type { PlainTextOption, StaticSelect } from '@slack/types';
import type { Pipeline, PipelineListItem, Stage } from '../../../../contract/schemas.ts';
import { PipelineIds, TenderIds } from '../../../shared/ids.ts';
import {
  encode,
  encodeKept,
  KEPT_STATE_DAYS,
  type StateKeeper,
  type StateOf,
} from '../../../shared/values/codec.ts';
import { SETTABLE_PIPELINE_STATUSES } from '../../../shared/values/pipeline-values.ts';
import {
  countdown,
  PAST_SUBMISSION,
  progressBar,
  STAGE_LABELS,
  STATUS_LABELS,
} from '../../../shared/views/bid-parts.ts';
import { blockKitProblems } from '../../../shared/views/block-kit-limits.ts';
import { bidsOwnerLine, type KeySource } from '../../../shared/views/key-identity.ts';
import { listPaging, pageRange } from '../../../shared/views/list-paging.ts';
import type { Message } from '../../../shared/views/messages.ts';
import {
  clip,
  clipMrkdwn,
  code,
  joinMrkdwn,
  type Mrkdwn,
  mrkdwn,
  pieces,
  text as plain,
  safeText,
  upperFirst,
} from '../../../shared/views/mrkdwn.ts';
import type { WithSafeMrkdwn } from '../../../shared/views/safe-blocks.ts';
import { type Block, button, contextLine, section } from '../../../shared/views/tender-card.ts';
import { type StartedBy, startedByPhrase } from './bid-people.ts';
import { dueOf, STAGE_EMOJI, stageText } from './stage-text.ts';
import { afterClosingNote, cardClosingDay, tenderClosesWhen } from './tender-closes.ts';

const STAGE_ORDER: Stage['status'][] = ['pending', 'in_progress', 'blocked', 'completed'];

/** The longest tender id a button carries (as a card's other buttons carry one). */
const TENDER_ID_ROOM = 300;

/** The values a card's controls carry, kept in the store when an id is too long for an option. */
export interface CardValues {
  stageOptions: Map<string, Map<Stage['status'], string>>;
  stageRefs: Map<string, string>;
  statusOptions: Map<string, string>;
  pipelineRef: string;
}

export async function cardValues(
  pipeline: Pipeline,
  keeper: StateKeeper,
  now: Date,
  /** Each stage's values kept under a short token (the same token for the same value). */
  compact: boolean,
): Promise<CardValues> {
  const p = pipeline.id;
  const stageOptions = new Map<string, Map<Stage['status'], string>>();
  const stageRefs = new Map<string, string>();
  for (const stage of pipeline.stages) {
    const options = new Map<Stage['status'], string>();
    for (const v of STAGE_ORDER)
      options.set(
        v,
        compact
          ? await keptUnderDigest('stageStatusOption', { p, s: stage.id, v }, keeper, now)
          : await encodeKept('stageStatusOption', { p, s: stage.id, v }, 'option', keeper, now),
      );
    stageOptions.set(stage.id, options);
    stageRefs.set(
      stage.id,
      compact
        ? await keptUnderDigest('pipelineStage', { p, s: stage.id }, keeper, now)
        : await encodeKept('pipelineStage', { p, s: stage.id }, 'button', keeper, now),
    );
  }
  const statusOptions = new Map<string, string>();
  for (const v of SETTABLE_PIPELINE_STATUSES)
    statusOptions.set(v, await encodeKept('pipelineStatusOption', { p, v }, 'option', keeper, now));
  return {
    stageOptions,
    stageRefs,
    statusOptions,
    pipelineRef: await encodeKept('pipeline', { p }, 'button', keeper, now),
  };
}

/**
 * A value kept in the store under a token made from what it holds (`~` and 22 url-safe characters,
 * as the codec's own): a card redrawn a hundred times keeps each value once, refreshed.
 */
async function keptUnderDigest<K extends 'stageStatusOption' | 'pipelineStage'>(
  kind: K,
  state: StateOf<K>,
  keeper: StateKeeper,
  now: Date,
): Promise<string> {
  const text = encode(kind, state, 'button');
  const token = `~${createHash('sha256').update(`${kind}\u0000${text}`).digest('base64url').slice(0, 22)}`;
  await keeper.saveState(token, text, new Date(now.getTime() + KEPT_STATE_DAYS * 86_400_000));
  return token;
}

/** A select's option as the app draws it (an option's `url` is a WebUrl too). */
type Option = WithSafeMrkdwn<PlainTextOption>;

function option(text: string, value: string): Option {
  return { text: { type: 'plain_text', text: clip(text, 75), emoji: true }, value };
}

function select(
  actionId: string,
  placeholder: string,
  options: Option[],
  initial: Option | undefined,
): WithSafeMrkdwn<StaticSelect> {
  return {
    type: 'static_select',
    action_id: actionId,
    placeholder: { type: 'plain_text', text: placeholder },
    options,
    ...(initial ? { initial_option: initial } : {}),
  };
}

/** A stage's status menu (`…/<its number>`), showing its status. */
export function stageSelect(stage: Stage, number: number, values: CardValues): WithSafeMrkdwn<StaticSelect> {
  const options = STAGE_ORDER.map((v) =>
    option(STAGE_LABELS[v], values.stageOptions.get(stage.id)?.get(v) as string),
  );
  return select(
    `${PipelineIds.stageStatus}/${number}`,
    'Set status',
    options,
    options[STAGE_ORDER.indexOf(stage.status)],
  );
}

/** What the card shows that the service does not know: the bid's reference and who started it. */
export interface CardKnown {
  /** `BID-7`: how people name the bid (never its id). */
  reference: string;
  starter?: StartedBy;
  /** The deadline of the bid's tender (an instant), where it could be read: dates after it are flagged. */
  tenderDeadline?: string | null;
  /** The title of the bid's tender, where it could be read: the card names the tender by it. */
  tenderTitle?: string | null;
}

/**
 * The pipeline's card, drawn from the service's answer: name, status (with a select that leaves
 * out `submitted`), target date with its countdown, progress, then one section per stage with a
 * select of its status and "Notes and due date", then Archive or Restore. An archived bid is read
 * only (Restore first). Fits one message: stages that would not fit are listed in one section.
 */
export async function pipelineCard(
  pipeline: Pipeline,
  keeper: StateKeeper,
  now: Date,
  /** The bid's reference (`BID-7`), and who started it through Tenderbot where that is known. */
  known: CardKnown,
): Promise<Message> {
  // Every stage keeps its controls: the longest notes that fit, each length tried with the values
  // as they are, then with each kept in the store under a short token (a message's JSON runs out
  // well before its 50 blocks). Past that, as many stages as fit and the rest listed.
  const plainValues = await cardValues(pipeline, keeper, now, false);
  let compactValues: CardValues | null = null;
  for (const notesRoom of NOTES_ROOM) {
    const plainly = drawCard(pipeline, plainValues, now, known, notesRoom);
    if (plainly) return plainly;
    compactValues ??= await cardValues(pipeline, keeper, now, true);
    const compactly = drawCard(pipeline, compactValues, now, known, notesRoom);
    if (compactly) return compactly;
  }
  return drawCard(pipeline, compactValues ?? plainValues, now, known, 'overflow') as Message;
}

/**
 * The card with these values and every stage's notes cut to `notesRoom`: null when not every stage
 * keeps its controls so; with `overflow`, as many stages as fit (shortest notes) and the rest listed.
 */
function drawCard(
  pipeline: Pipeline,
  values: CardValues,
  now: Date,
  known: CardKnown,
  notesRoom: number | 'overflow',
): Message | null {
  const stages = [...pipeline.stages].sort((a, b) => a.position - b.position);
  const done = stages.filter((stage) => stage.status === 'completed').length;
  const statusOptions = SETTABLE_PIPELINE_STATUSES.map((v) =>
    option(STATUS_LABELS[v], values.statusOptions.get(v) as string),
  );
  const currentStatus = statusOptions[SETTABLE_PIPELINE_STATUSES.indexOf(pipeline.status as never)];
  const settled = pipeline.archived || PAST_SUBMISSION.includes(pipeline.status);
  const closingDay = pipeline.archived ? null : cardClosingDay(known.tenderDeadline, pipeline.status, now);
  // The bid's own target, while it is still to be submitted: stages due after it are flagged.
  const targetDay = settled ? null : pipeline.targetSubmissionDate;
  // While the bid is still to be submitted, when its tender closes: the date every other one answers to.
  const tenderCloses = closingDay ? tenderClosesWhen(known.tenderDeadline, now) : null;
  // On one line, as the context line is: a title's line breaks and runs of spaces are one space.
  const tenderTitle = known.tenderTitle?.replace(/\s+/g, ' ').trim();
  // Counted down only while the bid is worked on (not once submitted, settled or archived).
  const target = countdown(pipeline.targetSubmissionDate, now, pipeline);
  const head: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(pipeline.name, 150), emoji: true } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clipMrkdwn(
          joinMrkdwn(
            [
              mrkdwn`*Status* ${plain(STATUS_LABELS[pipeline.status])}${pipeline.archived ? mrkdwn` · *Archived*` : mrkdwn``}`,
              mrkdwn`*Target submission* ${plain(target)}${target.includes(' · overdue by ') ? mrkdwn` :warning:` : mrkdwn``}${afterClosingNote(pipeline.targetSubmissionDate, closingDay)}`,
              ...(tenderCloses ? [mrkdwn`*Tender closes* ${tenderCloses}`] : []),
              ...(pipeline.summary ? [safeText(pipeline.summary, 1500)] : []),
            ],
            mrkdwn`\n`,
          ),
          3000,
        ),
      },
      ...(pipeline.archived
        ? {}
        : {
            accessory: select(
              PipelineIds.pipelineStatus,
              'Set the bid’s status',
              statusOptions,
              currentStatus,
            ),
          }),
    },
    contextLine(
      mrkdwn`${plain(progressBar(done, stages.length))} · ${code(known.reference, 40)}${pipeline.tenderId ? mrkdwn` · tender ${tenderTitle ? mrkdwn`“${safeText(tenderTitle, 100)}” ` : mrkdwn``}${code(pipeline.tenderId, 300)}` : mrkdwn``} · ${startedByPhrase(pipeline.owner.name, known.starter)}`,
    ),
  ];
  const tail: Block[] = [
    { type: 'divider' },
    {
      type: 'actions',
      block_id: 'pipeline:actions',
      elements: [
        ...(pipeline.archived ? [] : [button('Edit details', PipelineIds.editBid, values.pipelineRef)]),
        // The tender in full, to the person who pressed (its card: deadline, buyer, documents).
        ...(pipeline.tenderId && pipeline.tenderId.length <= TENDER_ID_ROOM
          ? [button('Open the tender', TenderIds.show, pipeline.tenderId)]
          : []),
        pipeline.archived
          ? button('Restore', PipelineIds.restore, values.pipelineRef, 'primary')
          : {
              ...button('Archive', PipelineIds.archive, values.pipelineRef),
              confirm: {
                title: { type: 'plain_text', text: 'Archive this bid?' },
                text: {
                  type: 'mrkdwn',
                  text: mrkdwn`It leaves the list of current bids and its card can no longer be changed until it is restored.`,
                },
                confirm: { type: 'plain_text', text: 'Archive' },
                deny: { type: 'plain_text', text: 'Keep it' },
                style: 'danger',
              },
            },
      ],
    },
  ];
  const stageBlocks = (stage: Stage, index: number, notesRoom: number): Block[] => {
    if (pipeline.archived)
      return [section(stageText(stage, index + 1, now, notesRoom, closingDay, targetDay, settled))];
    return [
      {
        type: 'section',
        block_id: `stage:${index}`,
        text: {
          type: 'mrkdwn',
          text: stageText(stage, index + 1, now, notesRoom, closingDay, targetDay, settled),
        },
        accessory: stageSelect(stage, index + 1, values),
      },
      {
        type: 'actions',
        block_id: `stage-actions:${index}`,
        elements: [
          button(
            'Notes and due date',
            `${PipelineIds.stageNotes}/${index + 1}`,
            values.stageRefs.get(stage.id) as string,
          ),
        ],
      },
    ];
  };
  const text = mrkdwn`${plain(pipeline.name)}: ${plain(STATUS_LABELS[pipeline.status])}, ${stages.length === 0 ? mrkdwn`no stages` : mrkdwn`${done}/${stages.length} stages done`}`;
  const draw = (shown: number, notesRoom: number): Block[] => {
    const blocks: Block[] = [...head];
    if (stages.length > 0) blocks.push({ type: 'divider' });
    stages.slice(0, shown).forEach((stage, index) => {
      blocks.push(...stageBlocks(stage, index, notesRoom));
    });
    if (shown < stages.length)
      blocks.push(
        ...overflow(known.reference, stages, shown, values.pipelineRef, (stage) =>
          dueOf(stage, now, closingDay, targetDay, settled),
        ),
      );
    blocks.push(...tail);
    return blocks;
  };
  const fits = (blocks: Block[]) => blockKitProblems(blocks, 'message').length === 0;
  if (notesRoom !== 'overflow') {
    const blocks = draw(stages.length, notesRoom);
    return fits(blocks) ? { text: clipMrkdwn(text, 3000), blocks } : null;
  }
  // More stages than one message holds with their controls: as many as fit, then the rest listed.
  const shortest = NOTES_ROOM.at(-1) as number;
  for (let shown = stages.length - 1; shown >= 0; shown--) {
    const blocks = draw(shown, shortest);
    if (fits(blocks)) return { text: clipMrkdwn(text, 3000), blocks };
  }
  return { text: clipMrkdwn(text, 3000), blocks: [...head, ...tail] };
}

/** How much of a stage's notes a card shows, longest first: the first that lets every stage fit. */
const NOTES_ROOM = [600, 300, 120, 0] as const;

/** How the stages past the menus are listed, fullest first: which due dates, and names cut to how much. */
const LIST_WORDINGS = [
  ['all', 100],
  ['flagged', 100],
  ['flagged', 40],
  ['flagged', 20],
  ['flagged', 0],
] as const;

/** The stages past those a message holds with their controls: said, listed, and how to change them. */
function overflow(
  reference: string,
  stages: Stage[],
  shown: number,
  pipelineRef: string,
  /** A stage's due date and what it is flagged for, as the stages above say them (dueOf). */
  dueOfStage: (stage: Stage) => { text: Mrkdwn; flagged: boolean } | null,
): Block[] {
  const listed = (dues: 'all' | 'flagged', nameRoom: number) =>
    joinMrkdwn(
      stages.slice(shown).map((stage, index) => {
        const due = dueOfStage(stage);
        // A warning (overdue, after the closing or the target) is what a bid lead must not miss.
        const shownDue = due && (dues === 'all' || due.flagged) ? due.text : null;
        const name = nameRoom > 0 ? mrkdwn` ${safeText(stage.name, nameRoom)}` : mrkdwn``;
        return mrkdwn`${plain(STAGE_EMOJI[stage.status])} ${shown + index + 1}.${name} · ${plain(STAGE_LABELS[stage.status])}${shownDue ? mrkdwn` · ${shownDue}` : mrkdwn``}`;
      }),
      mrkdwn`\n`,
    );
  // The first that fits one section: every due date; the flagged ones, with names cut shorter and
  // shorter; else numbers and warnings alone, in as many sections as they need. Never a stage or a
  // warning left out.
  // Drawn one after another, only until one fits (the card tries this for each number of stages shown).
  let fitting: Mrkdwn | null = null;
  for (const [dues, nameRoom] of LIST_WORDINGS) {
    const list = listed(dues, nameRoom);
    if (list.length <= 3000) {
      fitting = list;
      break;
    }
  }
  const lists = fitting ? [fitting] : pieces(listed('flagged', 0), 3000);
  return [
    section(
      mrkdwn`*Stages ${shown + 1} to ${stages.length} have no menus here:* a Slack message holds 50 blocks, and this bid has more stages than fit with their controls.`,
    ),
    ...lists.map((list) => section(list)),
    contextLine(
      mrkdwn`Change these with *All stages* (a form, a page at a time) or ${code(`/tender pipeline stage ${reference} <number> <status>`)}.`,
    ),
    {
      type: 'actions',
      block_id: 'pipeline:all-stages',
      elements: [button('All stages', `${PipelineIds.stagesForm}/${shown + 1}`, pipelineRef)],
    },
  ];
}

/** The command that lists every bid, archived or not, for what was typed; null where it could not be shown to copy. */
function everyBidTyped(typed: string): Mrkdwn | null {
  const words = typed.trim().split(/\s+/).filter(Boolean);
  if (words.some((word) => word.toLowerCase() === 'all')) return null;
  const kept = words.filter((word) => !['archived', 'active'].includes(word.toLowerCase())).join(' ');
  if (kept.length > 150 || /[`\n]/.test(kept)) return null;
  return code(`/tender pipelines ${kept ? `${kept} ` : ''}all`);
}

/**
 * After an empty list that was not of every bid already, the command that looks among every bid:
 * after no archived bids, or none submitted, won, lost or not bid for, as where to look next (a
 * bid is not started won: that is no cue to start one); otherwise beside "Start one". Nothing
 * where the command could not be shown to copy as it is.
 */
function afterNoBids(filter: BidListFilter, typed: string): Mrkdwn {
  const every = everyBidTyped(typed);
  if (filter.archived === 'archived')
    return every ? mrkdwn` Look among every bid, active ones too: ${every}.` : mrkdwn``;
  if (filter.status && PAST_SUBMISSION.includes(filter.status))
    return every ? mrkdwn` Finished bids are often archived; look among every bid: ${every}.` : mrkdwn``;
  return mrkdwn` Start one with “Start a bid” on a tender card${every ? mrkdwn`, or look among every bid, archived ones too: ${every}` : mrkdwn``}.`;
}

/** What a list of bids was asked for: its words, a status, and whether archived bids are in it. */
export interface BidListFilter {
  words: string;
  status?: Pipeline['status'];
  archived: 'active' | 'archived' | 'all';
}

/**
 * `current bids` (not archived, whatever their status: a won bid stays current until archived,
 * so never "active"), `archived bids`, `bids`, then `with the status Won`.
 */
function bidsNamed(filter: BidListFilter): Mrkdwn {
  const which = { active: mrkdwn`current bids`, archived: mrkdwn`archived bids`, all: mrkdwn`bids` }[
    filter.archived
  ];
  return filter.status ? mrkdwn`${which} with the status ${plain(STATUS_LABELS[filter.status])}` : which;
}

/**
 * `Current bids`, `Archived bids`, `All bids`, `Current bids matching “roads”`, `Archived bids with
 * the status Won`: what the list holds, its words last.
 */
function bidsHeading(filter: BidListFilter): Mrkdwn {
  const everyBid = filter.archived === 'all';
  const named = everyBid && !filter.status ? mrkdwn`All bids` : upperFirst(bidsNamed(filter));
  const matching = filter.words ? mrkdwn` matching “${plain(filter.words)}”` : mrkdwn``;
  return mrkdwn`${named}${matching}${everyBid && filter.status ? mrkdwn`, current or archived` : mrkdwn``}`;
}

/**
 * `No archived bids.`, `No current bids match “roads”.`, `No bids, current or archived.`: the filters
 * said as what is missing, never as words searched for.
 */
function noBidsSentence(filter: BidListFilter): Mrkdwn {
  const named = bidsNamed(filter);
  const anyArchived = filter.archived === 'all' ? mrkdwn`, current or archived,` : mrkdwn``;
  if (filter.words) return mrkdwn`No ${named}${anyArchived} match “${plain(filter.words)}”.`;
  return filter.archived === 'all' ? mrkdwn`No ${named}, current or archived.` : mrkdwn`No ${named}.`;
}

/** `/tender pipelines`: the bids the key's creator can see, each with "Post in channel" (not for a guest). */
export async function pipelinesListMessage(
  /** Each with its reference (`BID-7`), shown in place of its id. */
  items: (PipelineListItem & { reference: string })[],
  total: number,
  filter: BidListFilter,
  keeper: StateKeeper,
  now: Date,
  page: { offset: number; typed: string; pageSize: number } = { offset: 0, typed: '', pageSize: 20 },
  /** Whose key listed them: said under the heading (bids are seen and started as the key's maker). */
  keySource?: KeySource,
  /** A guest's list: no "Post in channel", which would only refuse them. */
  readOnly = false,
): Promise<Message> {
  const whose = keySource ? [contextLine(bidsOwnerLine(keySource, readOnly))] : [];
  if (total === 0 || items.length === 0) {
    const none = noBidsSentence(filter);
    return { text: none, blocks: [section(mrkdwn`${none}${afterNoBids(filter, page.typed)}`), ...whose] };
  }
  const shown = items.slice(0, page.pageSize);
  const blocks: Block[] = [
    section(mrkdwn`*${bidsHeading(filter)}* · ${pageRange(page.offset, shown.length, total)}`),
    ...whose,
  ];
  for (const item of shown) {
    const { stageCounts: counts } = item;
    const value = readOnly ? null : await encodeKept('pipeline', { p: item.id }, 'button', keeper, now);
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: clipMrkdwn(
          mrkdwn`*${safeText(item.name, 200)}* · ${plain(STATUS_LABELS[item.status])}${item.archived ? mrkdwn` · archived` : mrkdwn``}\n${plain(progressBar(counts.completed, counts.pending + counts.in_progress + counts.blocked + counts.completed))} · ${plain(item.targetSubmissionDate ? `target ${countdown(item.targetSubmissionDate, now, item)}` : 'no target date set')}\n${code(item.reference, 40)}`,
          3000,
        ),
      },
      ...(value === null ? {} : { accessory: button('Post in channel', PipelineIds.post, value) }),
    });
  }
  blocks.push(...listPaging('pipelines', page.typed, page.offset, shown.length, total, page.pageSize));
  return { text: mrkdwn`${bidsHeading(filter)}: ${total}`, blocks };
}
