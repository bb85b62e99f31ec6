import type { Logger } from 'pino';
import type { AppRespond } from '../../adapters/app-slack.ts';
import { type Mrkdwn, mrkdwn } from '../views/mrkdwn.ts';
import { section } from '../views/tender-card.ts';
import type { UnknownControlAnswers } from './control-registry.ts';

/** A click on a button this version does not have: one on a message from an older version. */
export const OUTDATED_BUTTON_SENTENCE: Mrkdwn = mrkdwn`This button is from an older version of Tenderbot, which no longer answers it. Run the command that showed it again (\`/tender help\` lists them) for a fresh one.`;

/** A shortcut this version does not have (Slack's menu still shows an older one). */
export const OUTDATED_SHORTCUT_SENTENCE: Mrkdwn = mrkdwn`That shortcut is from an older version of Tenderbot, which no longer answers it. Reload Slack and pick it again from the shortcuts menu, or type \`/tender help\`.`;

/** A window of an older version submitted: nothing in it was kept. */
export const OUTDATED_WINDOW_SENTENCE: Mrkdwn = mrkdwn`This window is from an older version of Tenderbot, so what you entered was not saved. Close it and open it again from a fresh message or \`/tender help\`.`;

/** The one option offered in an older window's select (Slack allows 75 characters). */
export const OUTDATED_OPTIONS_TEXT = 'Out of date: close this window and open it again';

/**
 * The answers to a control no listener of this version has: each is acknowledged at once (never
 * Slack's 404 after 3 s) and the person is told in a sentence what to do, only to them: through
 * `respond` (the click's response_url, else where they are: see request-router.ts), or inside the
 * window.
 */
export function unknownControlAnswers(logger: Logger): UnknownControlAnswers {
  const tell = async (what: string, id: string, respond: AppRespond, text: Mrkdwn) => {
    logger.warn({ what, id }, 'a control this version does not have was used; the person was told');
    await respond({ response_type: 'ephemeral', replace_original: false, text });
  };
  const told = (what: string) => (error: unknown) =>
    logger.error({ err: error, what }, 'could not say that a control is out of date');
  return {
    action: async ({ ack, body, respond }) => {
      await ack();
      const id = String((body.actions?.[0] as { action_id?: unknown } | undefined)?.action_id ?? '');
      await tell('action', id, respond, OUTDATED_BUTTON_SENTENCE).catch(told('action'));
    },
    shortcut: async ({ ack, body, respond }) => {
      await ack();
      await tell('shortcut', body.callback_id, respond, OUTDATED_SHORTCUT_SENTENCE).catch(told('shortcut'));
    },
    view: async ({ ack, view }) => {
      logger.warn(
        { what: 'view', id: view.callback_id },
        'a window this version does not have was submitted',
      );
      // The window itself says so: a submission has nowhere else that the person is looking.
      await ack({
        response_action: 'update',
        view: {
          type: 'modal',
          title: { type: 'plain_text', text: 'Tenderbot' },
          close: { type: 'plain_text', text: 'Close' },
          blocks: [section(OUTDATED_WINDOW_SENTENCE)],
        },
      });
    },
    options: async ({ ack, payload }) => {
      logger.warn(
        { what: 'options', id: payload.action_id },
        'options were asked of a select this version does not have',
      );
      await ack({
        options: [{ text: { type: 'plain_text', text: OUTDATED_OPTIONS_TEXT }, value: 'out_of_date' }],
      });
    },
  };
}
