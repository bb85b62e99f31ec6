import type { BlockAction, BlockElementAction } from '@slack/bolt';
import type { ControlRouter } from '../../shared/controls/control-registry.ts';
import {
  buttonValue,
  onAction,
  SUBMISSION_BUDGET_MS,
  submissionOf,
} from '../../shared/controls/on-action.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { PipelineIds } from '../../shared/ids.ts';
import { decode } from '../../shared/values/codec.ts';
import {
  type CardPlace,
  changePipelineStatus,
  changeStageStatus,
  postCardFromList,
  setArchived,
} from './card-changes.ts';
import { openEditBid, submitEditBid } from './edit-bid-form.ts';
import { openStageNotes, submitStageNotes } from './stage-notes-form.ts';
import { showStagesForm } from './stages-form.ts';
import { openStartBidModal, submitStartBid } from './start-bid-form.ts';
import { pageStart } from './views/stages-form.ts';

/** The value of a select's chosen option (other elements carry none). */
function optionValue(action: BlockElementAction): string | undefined {
  return action.type === 'static_select' ? action.selected_option?.value : undefined;
}

/** The card a click came from, when it is a message in a channel (an ephemeral one cannot be redrawn). */
function placeOf(body: BlockAction): CardPlace {
  const ts = body.container?.message_ts ?? body.message?.ts;
  const channelId = body.container?.channel_id ?? body.channel?.id;
  if (!ts || !channelId || body.container?.is_ephemeral) return null;
  return { channelId, ts };
}

type ViewAck = (answer?: unknown) => Promise<void>;

/** The number a numbered control carries after its id (`…/3` → 3); 1 when there is none. */
function numberOf(action: BlockElementAction): number {
  const number = Number(action.action_id.split('/').at(-1));
  return Number.isInteger(number) && number > 0 ? number : 1;
}

/**
 * Every listener of the pipelines feature (buttons, selects, modal submissions), registered by
 * registerListeners. Every value is decoded by the codec: a forged or stale one is a sentence.
 */
export function registerPipelineListeners(controls: ControlRouter, context: FeatureContext): void {
  const state = <K extends Parameters<typeof decode>[0]>(kind: K, raw: string | undefined) =>
    decode(kind, raw, context.store, context.clock());

  onAction(controls, context, PipelineIds.startBid, async (request, action, body) => {
    const { t } = await state('startBid', buttonValue(action));
    await openStartBidModal(context, request, { triggerId: body.trigger_id, tenderId: t });
  });
  // A stage's controls are numbered (`…/1`, `…/2`): one row of the registry, one listener. A click
  // in the "All stages" form has no response_url: the router's respond answers in direct messages.
  onAction(controls, context, PipelineIds.stageStatus, async (request, action, body) => {
    const change = await state('stageStatusOption', optionValue(action));
    await changeStageStatus(context, request, change, placeOf(body));
    // Changed in the "All stages" form: the form shows it too.
    if (body.view?.type === 'modal')
      await showStagesForm(context, request, {
        pipelineId: change.p,
        first: pageStart(numberOf(action)),
        triggerId: body.trigger_id,
        viewId: body.view.id,
      });
  });
  onAction(controls, context, PipelineIds.stagesForm, async (request, action, body) => {
    const { p } = await state('pipeline', buttonValue(action));
    await showStagesForm(context, request, {
      pipelineId: p,
      first: numberOf(action),
      triggerId: body.trigger_id,
      viewId: body.view?.type === 'modal' ? body.view.id : null,
    });
  });
  onAction(controls, context, PipelineIds.pipelineStatus, async (request, action, body) => {
    const change = await state('pipelineStatusOption', optionValue(action));
    await changePipelineStatus(context, request, change, placeOf(body));
  });
  for (const [actionId, archived] of [
    [PipelineIds.archive, true],
    [PipelineIds.restore, false],
  ] as const) {
    onAction(controls, context, actionId, async (request, action, body) => {
      const { p } = await state('pipeline', buttonValue(action));
      await setArchived(context, request, p, archived, placeOf(body));
    });
  }
  onAction(controls, context, PipelineIds.editBid, async (request, action, body) => {
    const { p } = await state('pipeline', buttonValue(action));
    await openEditBid(context, request, { triggerId: body.trigger_id, pipelineId: p, place: placeOf(body) });
  });
  onAction(controls, context, PipelineIds.post, async (request, action) => {
    const { p } = await state('pipeline', buttonValue(action));
    await postCardFromList(context, request, p);
  });
  onAction(controls, context, PipelineIds.stageNotes, async (request, action, body) => {
    const ref = await state('pipelineStage', buttonValue(action));
    // From All stages (a modal): the notes open on top of it.
    await openStageNotes(context, request, {
      triggerId: body.trigger_id,
      ref,
      place: placeOf(body),
      overForm: body.container?.type === 'view' && body.view?.type === 'modal' ? body.view.id : undefined,
    });
  });

  controls.view(PipelineIds.startBidCallback, async ({ ack, body, view, client, context: bolt }) => {
    await submitStartBid(
      context,
      client,
      submissionOf(body, view, bolt),
      ack as ViewAck,
      SUBMISSION_BUDGET_MS,
    );
  });
  controls.view(PipelineIds.editCallback, async ({ ack, body, view, client, context: bolt }) => {
    await submitEditBid(
      context,
      client,
      { ...submissionOf(body, view, bolt), openedBlocks: view.blocks },
      ack as ViewAck,
      SUBMISSION_BUDGET_MS,
    );
  });
  controls.view(PipelineIds.notesCallback, async ({ ack, body, view, client, context: bolt }) => {
    await submitStageNotes(
      context,
      client,
      { ...submissionOf(body, view, bolt), openedBlocks: view.blocks },
      ack as ViewAck,
      SUBMISSION_BUDGET_MS,
    );
  });
}
