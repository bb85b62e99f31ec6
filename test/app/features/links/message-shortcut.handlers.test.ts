import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commentOnMessage,
  type PickerAnswer,
  pickerMetadata,
  submitTenderPicker,
} from '../../../../src/app/features/links/message-shortcut.ts';
import { CommentIds, TENDER_PICKER } from '../../../../src/app/shared/ids.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { type HandlerHarness, startHandlerHarness } from '../../../support/handler-context.ts';

let harness: HandlerHarness;

beforeAll(async () => {
  harness = await startHandlerHarness();
  // A workspace whose stored key the service refuses (expired), for the look-up that fails.
  await harness.context.store.saveConnection({
    teamId: 'T0EXPIRED',
    encryptedApiKey: harness.context.cipher.encrypt(KEYS.aliceExpired),
    serviceUrl: null,
    connectedBy: 'U0ADMIN',
    connectedAt: new Date().toISOString(),
  });
});
afterAll(async () => {
  await harness?.close();
});

const PERSON = 'U0MEMBER';

/** "Comment on a tender" on a message with `text`; the window it left open for the person. */
async function shortcutOn(text: string, teamId = harness.slack.teamId) {
  const request = { ...harness.request({ userId: PERSON, channelId: 'C0BIDS', kind: 'click' }), teamId };
  const before = new Set(harness.slack.openModals(PERSON).map((view) => view.id));
  await commentOnMessage(harness.context, request, {
    triggerId: harness.slack.workspaceState.newTrigger(PERSON),
    message: { text, user: 'U0ADMIN' },
  });
  const opened = harness.slack.openModals(PERSON).filter((view) => !before.has(view.id));
  expect(opened).toHaveLength(1);
  return opened[0] as NonNullable<(typeof opened)[0]>;
}

describe('commentOnMessage', () => {
  it('opens the comment window of the tender a message links to, with the message quoted', async () => {
    const window = await shortcutOn(`Worth a bid? <${harness.sandbox.baseUrl}/v1/tenders/${TENDER_A}>`);
    expect(window.view.callback_id).toBe(CommentIds.callback);
    const drawn = JSON.stringify(window.view);
    expect(drawn).toContain('> Worth a bid?');
    expect(drawn).toContain(CommentIds.textInput);
  });

  it('asks which tender when the message names none, and says why when the look-up fails', async () => {
    const picker = await shortcutOn('Shall we go for the school catering one?');
    expect(picker.view.callback_id).toBe(TENDER_PICKER.callback);
    expect(JSON.stringify(picker.view)).toContain(TENDER_PICKER.action);

    const failed = await shortcutOn(`<${harness.sandbox.baseUrl}/v1/tenders/${TENDER_A}>`, 'T0EXPIRED');
    expect(failed.view.callback_id).toBe(TENDER_PICKER.callback);
    expect(JSON.stringify(failed.view.blocks)).toContain(':warning:');
    expect(JSON.stringify(failed.view)).not.toContain(CommentIds.textInput);
  });
});

describe('submitTenderPicker', () => {
  const chosen = (tenderId: string) => ({
    [TENDER_PICKER.block]: { [TENDER_PICKER.action]: { selected_option: { value: tenderId } } },
  });

  it('turns the picker into the chosen tender’s comment window, the quote in the box', async () => {
    const picker = await shortcutOn('Is this the hospital cleaning one?');
    const answers: PickerAnswer[] = [];
    await submitTenderPicker(
      harness.context,
      harness.request().slack,
      {
        teamId: harness.slack.teamId,
        userId: PERSON,
        values: chosen(TENDER_A),
        privateMetadata: picker.view.private_metadata,
        viewId: picker.id,
      },
      async (answer) => {
        answers.push(answer);
      },
    );
    expect(answers.map((answer) => answer?.response_action)).toEqual(['update']);
    const window = harness.slack.views.get(picker.id);
    expect(window?.view.callback_id).toBe(CommentIds.callback);
    expect(JSON.stringify(window?.view)).toContain('> Is this the hospital cleaning one?');
  });

  it('keeps a missing choice, and an out-of-date window, on the field', async () => {
    const answers: PickerAnswer[] = [];
    const submit = (values: unknown, privateMetadata: string) =>
      submitTenderPicker(
        harness.context,
        harness.request().slack,
        { teamId: harness.slack.teamId, userId: PERSON, values, privateMetadata, viewId: 'V0NONE' },
        async (answer) => {
          answers.push(answer);
        },
      );
    await submit({}, pickerMetadata({ c: 'C0BIDS', q: '' }));
    await submit(chosen(TENDER_A), '{"forged":true}');
    expect(answers).toEqual([
      {
        response_action: 'errors',
        errors: { [TENDER_PICKER.block]: 'Choose a tender first: type words of its title.' },
      },
      {
        response_action: 'errors',
        errors: {
          [TENDER_PICKER.block]:
            'This window is out of date. Close it and use “Comment on a tender” on the message again.',
        },
      },
    ]);
  });
});
