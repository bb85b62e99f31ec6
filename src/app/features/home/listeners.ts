import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { ActionId, ControlRouter } from '../../shared/controls/control-registry.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { withFailures } from '../../shared/feature-context.ts';
import { HomeIds } from '../../shared/ids.ts';
import { teamOfRequest } from '../../shared/request-scope.ts';
import { decodeText } from '../../shared/values/codec.ts';
import { channelLink, type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { fieldErrors, plainSentence } from '../../shared/views/plain-sentence.ts';
import { publishHome } from './home.ts';
import {
  askChannel,
  chosenInWindow,
  type HomeOutcome,
  homeRequest,
  openBid,
  openTender,
  postInChosenChannel,
  runSaved,
} from './home-actions.ts';

/** How a Home button's work ended: its own outcome, or `failed` when it threw (withFailures said why). */
async function outcomeOf(
  context: FeatureContext,
  request: SlackRequest,
  what: string,
  work: (guarded: SlackRequest) => Promise<HomeOutcome>,
): Promise<HomeOutcome | 'failed'> {
  let outcome: HomeOutcome | 'failed' = 'failed';
  await withFailures(context, request, what, null, async (guarded) => {
    outcome = await work(guarded);
  });
  return outcome;
}

/** The notice for work not known to be done: never a "Done" for a refusal or a failure. */
function noticeOf(outcome: HomeOutcome | 'failed'): Mrkdwn | null {
  if (outcome === 'done') return null;
  return outcome === 'answered'
    ? mrkdwn`Tenderbot’s answer is in your *Messages* with Tenderbot.`
    : mrkdwn`That was not done: why is said in your *Messages* with Tenderbot.`;
}

/** The Home tab, drawn whenever a person opens it, and the buttons of its rows. */
export function registerHomeListeners(
  app: Pick<App, 'event'>,
  controls: ControlRouter,
  context: FeatureContext,
): void {
  app.event('app_home_opened', async ({ event, body, client, context: bolt }) => {
    if (event.tab !== 'home') return;
    // Slack sends the Home it last drew (`view`) once there is one: without it, this is a first visit.
    await publishHome(context, client, teamOfRequest(bolt, body.team_id), event.user, {
      firstVisit: !('view' in event && event.view),
    });
  });

  /**
   * A row's button: its record id, and the answer in the person's direct messages; `notice` (when
   * the answer went there) is then said at the top of the Home tab, where the person is looking,
   * and only when the work was done: a refusal or a failure gets a notice saying so.
   */
  const onRowButton = (
    id: ActionId,
    handle: (
      request: SlackRequest,
      recordId: string,
      body: BlockAction<ButtonAction>,
    ) => Promise<HomeOutcome>,
    notice?: Mrkdwn,
  ) =>
    controls.action<BlockAction<ButtonAction>>(id, async ({ ack, body, action, client, context: bolt }) => {
      await ack();
      const teamId = teamOfRequest(bolt, body.team?.id, body.user.team_id);
      const request = await homeRequest(client, teamId, body.user.id);
      const outcome = await outcomeOf(context, request, id, (guarded) =>
        handle(guarded, decodeText('record', action.value), body),
      );
      const shown = outcome === 'done' ? notice : noticeOf(outcome);
      if (shown) await publishHome(context, client, teamId, body.user.id, { notice: shown });
    });
  onRowButton(
    HomeIds.openBid,
    (request, id) => openBid(context, request, id),
    mrkdwn`The bid’s card is in your *Messages* with Tenderbot.`,
  );
  onRowButton(
    HomeIds.openTender,
    (request, id) => openTender(context, request, id),
    mrkdwn`The tender is in your *Messages* with Tenderbot.`,
  );
  onRowButton(
    HomeIds.runSaved,
    (request, id) => runSaved(context, request, id),
    mrkdwn`The search’s results are in your *Messages* with Tenderbot.`,
  );
  for (const [actionId, kind, subscribe] of [
    [HomeIds.postBid, 'bid', false],
    [HomeIds.postTender, 'tender', false],
    [HomeIds.subscribeSaved, 'saved', true],
    [HomeIds.postSaved, 'saved', false],
  ] as const)
    onRowButton(actionId, (request, id, body) =>
      askChannel(context, request, { kind, id, subscribe, triggerId: body.trigger_id }),
    );

  // "Which channel?": closed at once; what it posts, and any problem, is said in direct messages.
  controls.view(HomeIds.channelCallback, async ({ ack, body, view, client, context: bolt }) => {
    const { channelId, cadence } = chosenInWindow(view.state?.values);
    if (!channelId) {
      await ack(fieldErrors({ [HomeIds.channelBlock]: plainSentence`Choose a channel.` }));
      return;
    }
    await ack();
    const teamId = teamOfRequest(bolt, body.team?.id, body.user.team_id);
    const answers = await homeRequest(client, teamId, body.user.id);
    const request: SlackRequest = { ...answers, channelId, kind: 'click' };
    const outcome = await outcomeOf(context, request, HomeIds.channelCallback, (guarded) =>
      postInChosenChannel(context, guarded, view.private_metadata, cadence),
    );
    await publishHome(context, client, teamId, body.user.id, {
      notice:
        outcome === 'done'
          ? mrkdwn`Done in ${channelLink(channelId)}: what was posted is said in your *Messages* with Tenderbot.`
          : (noticeOf(outcome) as Mrkdwn),
    });
  });
}
