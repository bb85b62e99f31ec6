/* "Start a bid" on a tender card: the form, filled from the tender, and its submission. */

import { randomUUID } from 'node:crypto';
import { ForbiddenError, IdempotencyConflictError, NotFoundError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Pipeline } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { describeFailure } from '../../shared/failure-sentences.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { PipelineIds } from '../../shared/ids.ts';
import { writerOr } from '../../shared/key-access.ts';
import { encodeKept } from '../../shared/values/codec.ts';
import type { KeySource } from '../../shared/views/key-identity.ts';
import { code, type Mrkdwn, mrkdwn, text as plain } from '../../shared/views/mrkdwn.ts';
import {
  fieldErrors,
  type PlainSentence,
  plainOf,
  plainSentence,
} from '../../shared/views/plain-sentence.ts';
import { withinBudget } from '../../shared/within-budget.ts';
import { bidReferences, withBidReferences } from './bid-references.ts';
import { withStartedBy } from './bid-starters.ts';
import {
  afterClosingQuestion,
  guestGetsSentence,
  modalStateOr,
  openLoadingModal,
  pastDayQuestion,
  SUBMIT_BUDGET_MS,
  stagesLongerQuestion,
  type ViewAck,
} from './form-steps.ts';
import { postPipelineCard, tellUnder } from './pipeline-live.ts';
import { checkStartBid, parseStartBidSubmission } from './pipeline-submissions.ts';
import { RUNNING_BIDS_LOOKED_THROUGH, runningBidsOn } from './running-bids.ts';
import { closedTenderSentence } from './views/bid-people.ts';
import {
  DEFAULT_STAGE_TEMPLATE,
  runningBidsSentence,
  START_BID_BUTTON,
  type StartBidFields,
  sentenceView,
  startBidLoadingView,
  startBidModal,
  startBidWorkingView,
} from './views/pipeline-modals.ts';
import { deadlineDay, openDeadline } from './views/tender-closes.ts';

function startForbiddenSentence(source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`The service did not let you start bids with your own key: you are a viewer in the organisation. Nothing was started.`
    : mrkdwn`The service did not let this workspace’s key start bids: the person who made the key is a viewer in the organisation. Nothing was started. Ask an admin to connect a key made by someone who can edit bids.`;
}

/** How long a second "Start a bid" on the same tender, by the same person, counts as the same click. */
const DOUBLE_CLICK_MS = 10_000;

/**
 * The form's idempotency key. A double click reaches Tenderbot (any copy) as two clicks before the
 * first form shows, and opens two forms: within DOUBLE_CLICK_MS they share one key, so submitting
 * both starts one bid (the second, if its details differ, is told that its form already started one).
 * Once a form has started its bid, the next click gets a key of its own (a second bid, for a second lot).
 */
async function startBidFormKey(
  context: FeatureContext,
  request: SlackRequest,
  tenderId: string,
): Promise<string> {
  const now = context.clock();
  const name = formKeyName(request.teamId, request.userId, tenderId);
  const until = new Date(now.getTime() + DOUBLE_CLICK_MS);
  // The first click claims the name; after a form started its bid, the first click after claims the next round.
  let claim = name;
  for (let tries = 0; tries < 40; tries++) {
    if (await context.store.rememberRequest(claim, until, now)) {
      const key = randomUUID();
      await context.store.saveState(name, key, until);
      return key;
    }
    const kept = await context.store.loadState(name, now);
    if (kept?.startsWith(USED)) claim = `${name}:${kept}`;
    else if (kept) return kept;
    // The click ahead is keeping its key (a few milliseconds on any store).
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return randomUUID();
}

/** What a shared key is replaced by once its form started the bid: `used:` and the key. */
const USED = 'used:';

/**
 * Whether the form's key already started a bid (its twin, opened by the same double click, was
 * submitted first): the sentence saying so, naming that bid, or null.
 */
async function startedFromThisForm(
  context: FeatureContext,
  teamId: string,
  userId: string,
  meta: { t: string | null; k: string },
): Promise<PlainSentence | null> {
  if (!meta.t) return null;
  const kept = await context.store.loadState(formKeyName(teamId, userId, meta.t), context.clock());
  const used = `${USED}${meta.k}`;
  if (kept !== used && !kept?.startsWith(`${used}:`)) return null;
  const pipelineId = kept.slice(used.length + 1);
  const reference = pipelineId
    ? (await bidReferences(context, teamId, [pipelineId])).get(pipelineId)
    : undefined;
  return plainSentence`This click already started ${reference ?? 'a bid'} (a double click opens the form twice). To start another bid, copy what you typed, close this form and click “Start a bid” again.`;
}

function formKeyName(teamId: string, userId: string, tenderId: string): string {
  return `start-bid:${teamId}:${userId}:${tenderId}`;
}

/** "Start a bid" on a tender card: the modal opens at once (loading), then is filled from the tender. */
export async function openStartBidModal(
  context: FeatureContext,
  request: SlackRequest,
  args: { triggerId: string; tenderId: string },
): Promise<void> {
  // The trigger lasts 3 s: open first, then read.
  const formKey = await startBidFormKey(context, request, args.tenderId);
  const metadata = await encodeKept(
    'startBidModal',
    { t: args.tenderId, k: formKey, c: request.channelId.slice(0, 50) },
    'metadata',
    context.store,
    context.clock(),
  );
  const update = await openLoadingModal(request, args.triggerId, startBidLoadingView(metadata));
  if (
    await guestGetsSentence(context, request, update, {
      title: 'Start a bid',
      sentence: mrkdwn`Guests can read bids but cannot start them. Ask a member of the workspace to start it for you.`,
    })
  )
    return;
  const writer = await writerOr(context, request.teamId, request.userId, (sentence) =>
    update(sentenceView('Start a bid', sentence)),
  );
  if (!writer) return;
  const { client } = writer;
  // Both at once: the lookup of running bids pages the key's bids, the tender is one read.
  const [read, running] = await Promise.all([
    client.tenders.get(args.tenderId).then(
      (tender) => ({ tender }),
      (error: unknown) => ({ error }),
    ),
    runningBidsNotice(context, request.teamId, client, args.tenderId),
  ]);
  if ('error' in read && read.error instanceof NotFoundError) {
    await update(
      sentenceView(
        'Start a bid',
        mrkdwn`That tender can no longer be found, so no bid can be started from it.`,
      ),
    );
    return;
  }
  if ('error' in read) {
    // The tender could not be read: the person can still start the bid, with nothing prefilled.
    context.logger.warn(
      { err: read.error, teamId: request.teamId },
      'could not read the tender for a new bid',
    );
    await update(
      startBidModal({
        privateMetadata: metadata,
        tenderTitle: null,
        problem: mrkdwn`${describeFailure(read.error).sentence} You can still start the bid here.`,
        ...running,
        fields: { name: '', summary: '', targetDate: null, stages: DEFAULT_STAGE_TEMPLATE },
      }),
    );
    return;
  }
  const { tender } = read;
  // The deadline's UTC day, as the form's question and the card count it.
  const deadline = deadlineDay(tender.deadline);
  const future = deadline && Date.parse(`${deadline}T00:00:00Z`) >= context.clock().getTime() - 86_400_000;
  const closed = closedTenderSentence(tender, context.clock());
  const closes = openDeadline(tender.deadline, context.clock());
  await update(
    startBidModal({
      // The deadline the form says goes with it, so that a target date after it is asked about.
      privateMetadata: closes
        ? await encodeKept(
            'startBidModal',
            { t: args.tenderId, k: formKey, c: request.channelId.slice(0, 50), d: closes },
            'metadata',
            context.store,
            context.clock(),
          )
        : metadata,
      tenderTitle: tender.title,
      ...(closed
        ? { problem: mrkdwn`${closed} You can still start the bid, to keep its notes and stages.` }
        : {}),
      ...running,
      tenderCloses: closes,
      fields: {
        name: cutText(`Bid for ${tender.title}`, 200),
        summary: '',
        targetDate: future ? deadline : null,
        stages: DEFAULT_STAGE_TEMPLATE,
      },
    }),
  );
}

/**
 * What the form says of bids already running for the tender: a warning naming them, and a note
 * when the lookup failed or looked through only the newest bids. A failure never keeps the form
 * from opening.
 */
async function runningBidsNotice(
  context: FeatureContext,
  teamId: string,
  client: ProcurementClient,
  tenderId: string,
): Promise<{ running?: Mrkdwn; notes?: Mrkdwn[] }> {
  try {
    const found = await runningBidsOn(client, tenderId);
    const partly = found.complete
      ? []
      : [
          mrkdwn`Other bids on this tender were looked for among the newest ${RUNNING_BIDS_LOOKED_THROUGH} current bids only.`,
        ];
    if (found.bids.length === 0) return { notes: partly };
    const bids = await withStartedBy(context, teamId, await withBidReferences(context, teamId, found.bids));
    return { running: runningBidsSentence(bids), notes: partly };
  } catch (error) {
    context.logger.warn({ err: error, teamId }, 'could not look for bids already running for a tender');
    return {
      notes: [
        mrkdwn`Tenderbot could not check whether another bid is already running for this tender: ${describeFailure(error).sentence}`,
      ],
    };
  }
}

/** Creations under way, by idempotency key: a double submit waits for the first instead of posting twice. */
const creating = new Map<string, Promise<Pipeline>>();

/**
 * The start-bid modal's submission: checked field by field, then created with the modal's
 * idempotency key (a double submit or a retry makes one bid); the card is posted in the channel
 * once. A failure keeps the modal open with what was typed and a sentence.
 */
export async function submitStartBid(
  context: FeatureContext,
  slack: AppSlack,
  args: {
    teamId: string;
    userId: string;
    values: unknown;
    privateMetadata: string;
    viewId: string | undefined;
  },
  ack: ViewAck,
  budgetMs = SUBMIT_BUDGET_MS,
): Promise<void> {
  const meta = await modalStateOr(context, 'startBidModal', args.privateMetadata, ack, {
    title: 'Start a bid',
    sentence: mrkdwn`This form is out of date. Close it and click “Start a bid” on the tender again.`,
  });
  if (!meta) return;
  const fields = parseStartBidSubmission(args.values);
  const checked = checkStartBid(fields);
  if (!checked.ok) return ack(fieldErrors(checked.errors));
  // Who may start it comes before the questions about dates and stages: a refusal is not preceded by them.
  if ((await context.users.facts(args.userId, args.teamId)).isGuest)
    return ack(
      fieldErrors({
        [PipelineIds.nameBlock]: plainSentence`Guests can read bids but cannot start them. Ask a member of the workspace.`,
      }),
    );
  const kept: StartBidFields = fields;
  const writer = await writerOr(context, args.teamId, args.userId, (sentence) =>
    ack(fieldErrors({ [PipelineIds.nameBlock]: plainOf(sentence) })),
  );
  if (!writer) return;
  const body = {
    name: fields.name.trim(),
    tenderId: meta.t,
    summary: fields.summary.trim() || null,
    targetSubmissionDate: fields.targetDate,
    stages: checked.stages.map((stage) => ({
      name: stage.name,
      expectedDurationDays: stage.expectedDurationDays,
    })),
  };
  const creation = `${meta.k}\u0000${JSON.stringify(body)}`;
  // A spare form of a double click, its twin already used: said before any question about it.
  if (!creating.has(creation)) {
    const spent = await startedFromThisForm(context, args.teamId, args.userId, meta);
    if (spent) return ack(fieldErrors({ [PipelineIds.nameBlock]: spent }));
  }
  // Every question at once (a target date and the stages), each answered by pressing again.
  const targetQuestion =
    (await pastDayQuestion(context, {
      button: START_BID_BUTTON,
      formId: meta.k,
      field: PipelineIds.targetBlock,
      day: fields.targetDate,
    })) ??
    (await afterClosingQuestion(context, {
      button: START_BID_BUTTON,
      formId: meta.k,
      field: PipelineIds.targetBlock,
      day: fields.targetDate,
      deadline: meta.d,
    }));
  const stagesQuestion = await stagesLongerQuestion(context, {
    button: START_BID_BUTTON,
    formId: meta.k,
    field: PipelineIds.stagesBlock,
    stages: checked.stages,
    targetDate: fields.targetDate,
    deadline: meta.d,
  });
  if (targetQuestion || stagesQuestion)
    return ack(
      fieldErrors({
        ...(targetQuestion ? { [PipelineIds.targetBlock]: targetQuestion } : {}),
        ...(stagesQuestion ? { [PipelineIds.stagesBlock]: stagesQuestion } : {}),
      }),
    );
  // The same form with the same details shares one creation; other details go to the service,
  // which refuses them under a key already used (IdempotencyConflictError), so no text is lost silently.
  const already = creating.get(creation);
  const first = !already;
  const outcome = already ?? writer.client.pipelines.create(body, { idempotencyKey: meta.k });
  if (first) {
    creating.set(creation, outcome);
    void outcome.then(
      () => setTimeout(() => creating.delete(creation), 60_000).unref(),
      () => creating.delete(creation),
    );
  }
  const { quick, outcome: settled } = await withinBudget(outcome, budgetMs);
  const problemOf = (error: unknown) => {
    context.logger.warn({ err: error, teamId: args.teamId }, 'could not start a bid');
    if (error instanceof IdempotencyConflictError)
      return mrkdwn`A bid was already started from this click (a double click opens the form twice). To start another, copy what you typed, close this form and click “Start a bid” again.`;
    if (error instanceof ForbiddenError) return startForbiddenSentence(writer.source);
    return mrkdwn`${describeFailure(error).sentence} What you typed is kept: submit again when you are ready.`;
  };
  if (quick && 'error' in quick)
    return ack(fieldErrors({ [PipelineIds.nameBlock]: plainOf(problemOf(quick.error)) }));
  if (quick) await ack();
  else await ack({ response_action: 'update', view: startBidWorkingView(args.privateMetadata) });
  const result = quick ?? (await settled);
  if ('error' in result) {
    if (args.viewId)
      await slack.views
        .update({
          view_id: args.viewId,
          view: startBidModal({
            privateMetadata: args.privateMetadata,
            tenderTitle: null,
            problem: problemOf(result.error),
            fields: kept,
          }),
        })
        .catch((error) => context.logger.warn({ err: error }, 'could not reopen the start-bid form'));
    return;
  }
  if (!quick && args.viewId)
    await slack.views
      .update({
        view_id: args.viewId,
        view: sentenceView('Start a bid', mrkdwn`The bid is started; its card is in the channel.`),
      })
      .catch(() => undefined);
  // One card per creation: the first submission posts it, a repeat finds it remembered.
  if (!first) return;
  if (meta.t)
    await context.store.saveState(
      formKeyName(args.teamId, args.userId, meta.t),
      `${USED}${meta.k}:${result.value.id}`,
      new Date(context.clock().getTime() + DOUBLE_CLICK_MS),
    );
  // Who started it, before its first card is drawn (the service only knows the key's maker).
  await context.store.recordBidStarter({
    pipelineId: result.value.id,
    teamId: args.teamId,
    userId: args.userId,
    ownKey: writer.source === 'personal',
    startedAt: context.clock(),
  });
  const known = await context.store.pipelineMessages(args.teamId, result.value.id);
  if (known.some((place) => place.channelId === meta.c)) return;
  const channelId = meta.c || args.userId;
  const ts = await postPipelineCard(
    context,
    slack,
    args.teamId,
    channelId,
    result.value,
    writer.client,
  ).catch(async (error) => {
    context.logger.warn({ err: error, teamId: args.teamId }, 'could not post a new bid’s card');
    // What to type is the bid's reference, as everywhere people name a bid, not its service id.
    const reference = (await bidReferences(context, args.teamId, [result.value.id])).get(result.value.id);
    await slack.chat
      .postMessage({
        channel: args.userId,
        text: mrkdwn`The bid “${plain(result.value.name)}” is started, but its card could not be posted in the channel (invite Tenderbot there first). ${code(`/tender pipeline ${reference ?? result.value.id}`)} posts it.`,
      })
      .catch(() => undefined);
    return null;
  });
  if (ts && meta.t) await tellIfTenderClosed(context, slack, writer.client, meta.t, { channelId, ts });
}

/** Under a new bid's card: that its tender is closed, awarded or past its deadline, when it is. */
async function tellIfTenderClosed(
  context: FeatureContext,
  slack: AppSlack,
  client: ProcurementClient,
  tenderId: string,
  card: { channelId: string; ts: string },
): Promise<void> {
  const tender = await client.tenders.get(tenderId).catch(() => null);
  const closed = tender && closedTenderSentence(tender, context.clock());
  if (closed)
    tellUnder(context, slack, [card], mrkdwn`:warning: This bid was started on a closed tender. ${closed}`);
}
