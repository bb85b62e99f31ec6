import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineIds } from '../../../../src/app/shared/ids.ts';
import { blockKitProblems, viewProblems } from '../../../../src/app/shared/views/block-kit-limits.ts';
import { ProcurementClient } from '../../../../src/client/procurement-client.ts';
import type { FakeMessage } from '../../../../src/fake-slack/fake-slack.ts';
import { eventually, type RunningBot, startBotAsCarol } from '../../../support/bot.ts';
import { KEYS, TENDER_A } from '../../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';
import { textOf } from '../../../support/slack-text.ts';

/* A bid with more stages than its card holds with their controls: the card says so, and "All stages" pages them in a form. */

const MEMBER = 'U0MEMBER';
const BIDS = 'C0BIDS';

let sandbox: TestSandbox;
let bot: RunningBot;
let service: ProcurementClient;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  bot = await startBotAsCarol(sandbox);
  service = new ProcurementClient({ baseUrl: sandbox.baseUrl, apiKey: KEYS.carolMemberAcme });
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await service?.close();
  await sandbox?.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON as the fake Slack keeps it.
type Element = any;
const selectsIn = (blocks: Element[]) =>
  blocks.filter((block) => block.accessory?.action_id?.startsWith(`${PipelineIds.stageStatus}/`));

describe('a bid with thirty stages', () => {
  it('the card says which stages have no menus; "All stages" pages them, and a change there is told under the card', async () => {
    const pipeline = await service.pipelines.create({
      name: 'Thirty stage bid',
      tenderId: TENDER_A,
      stages: Array.from({ length: 30 }, (_, index) => ({
        name: `Stage ${index + 1}`,
        expectedDurationDays: 1,
      })),
    });
    await bot.slack.slashCommand(MEMBER, BIDS, '/tender', `pipeline ${pipeline.id}`);
    const card = await eventually(
      () =>
        bot.slack
          .messagesIn(BIDS)
          .find(
            (message) =>
              message.ephemeralTo === null && message.metadata?.event_payload?.pipeline_id === pipeline.id,
          ),
      'the card',
    );
    const shown = selectsIn(card.blocks).length;
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThan(30);
    expect(textOf(card)).toContain(`Stages ${shown + 1} to 30 have no menus here`);
    expect(blockKitProblems(card.blocks, 'message')).toEqual([]);

    await bot.slack.clickInMessage(MEMBER, card, `${PipelineIds.stagesForm}/${shown + 1}`);
    const form = await eventually(
      () => bot.slack.openModals(MEMBER).find((view) => textOf(view.view).includes('Stages 1 to 20 of 30')),
      'the form’s first page',
    );
    expect(selectsIn(form.view.blocks)).toHaveLength(20);
    expect(viewProblems(form.view)).toEqual([]);
    await bot.slack.clickInView(MEMBER, form.id, `${PipelineIds.stagesForm}/21`);
    const second = await eventually(
      () => bot.slack.openModals(MEMBER).find((view) => textOf(view.view).includes('Stages 21 to 30 of 30')),
      'the form’s second page',
    );
    const select = selectsIn(second.view.blocks).find(
      (block: Element) => block.accessory.action_id === `${PipelineIds.stageStatus}/25`,
    ).accessory;
    const completed = select.options.find((option: Element) => option.text.text === 'Completed').value;
    await bot.slack.clickInView(MEMBER, second.id, select.action_id, { selectedOption: completed });
    await eventually(
      () =>
        bot.slack
          .threadOf(BIDS, (card as FakeMessage).ts)
          .find(
            (reply) =>
              reply.text === '<@U0MEMBER> moved stage 25, Stage 25, of Thirty stage bid to Completed',
          ),
      'the line under the card',
    );
    const after = await service.pipelines.get(pipeline.id);
    expect(after.stages.find((stage) => stage.name === 'Stage 25')?.status).toBe('completed');
    // The form shows the change, on the same page.
    await eventually(() => {
      const view = bot.slack.openModals(MEMBER).find((each) => each.id === second.id);
      const redrawn =
        view &&
        selectsIn(view.view.blocks).find((block: Element) => block.accessory.action_id.endsWith('/25'));
      return redrawn?.accessory.initial_option.text.text === 'Completed';
    }, 'the form redrawn');

    // Every stage's notes and due date are reached here, beyond the card's first stages: the
    // window opens on top of the form (a second modal beside it is not Slack's way).
    const pages = bot.slack.openModals(MEMBER).length;
    await bot.slack.clickInView(MEMBER, second.id, `${PipelineIds.stageNotes}/25`);
    // Opened loading at once, then filled from the bid: waited for until it names the stage.
    const notes = await eventually(
      () =>
        bot.slack
          .openModals(MEMBER)
          .find(
            (view) =>
              view.view.callback_id === PipelineIds.notesCallback && textOf(view.view).includes('Stage 25'),
          ),
      'the notes window, filled',
    );
    expect(bot.slack.openModals(MEMBER)).toHaveLength(pages + 1);
    expect(textOf(notes.view)).toContain('Stage 25');
    await bot.slack.submitView(MEMBER, notes.id, { [PipelineIds.notesInput]: 'Ask legal about lot 3' });
    await eventually(
      async () =>
        (await service.pipelines.get(pipeline.id)).stages.find((stage) => stage.name === 'Stage 25')
          ?.notes === 'Ask legal about lot 3',
      'stage 25’s notes in the service',
    );
    // The save closes back onto All stages, which shows the notes without being opened again.
    await eventually(() => {
      const form = bot.slack.openModals(MEMBER).find((each) => each.id === second.id);
      return form !== undefined && textOf(form.view).includes('Ask legal about lot 3');
    }, 'the All stages form redrawn with the notes');
  }, 30_000);
});
