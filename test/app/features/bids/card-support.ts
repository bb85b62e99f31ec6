/* What the bid card tests share: finding cards and their menus, reading the service until it changes, and Slack's limits. */
import { PipelineIds } from '../../../../src/app/shared/ids.ts';
import { blockKitProblems, viewProblems } from '../../../../src/app/shared/views/block-kit-limits.ts';
import type { ProcurementClient } from '../../../../src/client/procurement-client.ts';
import type { Pipeline } from '../../../../src/contract/schemas.ts';
import type { FakeMessage, FakeSlack } from '../../../../src/fake-slack/fake-slack.ts';
import { eventually } from '../../../support/bot.ts';

/** Every card in the channel that shows the pipeline (posted for everyone, not a thread reply). */
export function cardsOf(slack: FakeSlack, channel: string, pipelineId: string): FakeMessage[] {
  return slack
    .messagesIn(channel)
    .filter(
      (message) =>
        message.ephemeralTo === null &&
        message.threadTs === null &&
        message.metadata?.event_payload?.pipeline_id === pipelineId,
    );
}

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON as the fake Slack keeps it.
export type Element = any;

/** The stage selects of a card, in order: the status each shows, read from its chosen option's value. */
export function stageSelects(card: FakeMessage): Element[] {
  return card.blocks
    .map((block: Element) => block.accessory)
    .filter((element: Element) => element?.action_id?.startsWith(`${PipelineIds.stageStatus}/`));
}
export function shownStatuses(card: FakeMessage): string[] {
  return stageSelects(card).map((select: Element) => JSON.parse(select.initial_option.value).v);
}
export function optionFor(select: Element, label: string): string {
  const option = select.options.find((candidate: Element) => candidate.text.text === label);
  if (!option) throw new Error(`no option ${label}`);
  return option.value;
}
export const statusesOf = (pipeline: Pipeline) =>
  [...pipeline.stages].sort((a, b) => a.position - b.position).map((stage) => stage.status);

/** Resolves with the next ephemeral message `user` sees in `channel` after `before` messages. */
export function nextFor(slack: FakeSlack, user: string, channel: string, before: number, what: string) {
  return eventually(
    () =>
      slack
        .messagesIn(channel, user)
        .slice(before)
        .find((message) => message.ephemeralTo === user),
    what,
  );
}

export function payloadProblems(slack: FakeSlack): string[] {
  const problems: string[] = [];
  let checked = 0;
  for (const call of slack.calls) {
    if (call.args.blocks) {
      checked++;
      problems.push(
        ...blockKitProblems(call.args.blocks, 'message').map((problem) => `${call.method}: ${problem}`),
      );
    }
    if (call.args.view) {
      checked++;
      problems.push(...viewProblems(call.args.view).map((problem) => `${call.method}: ${problem}`));
    }
  }
  if (checked === 0) problems.push('no payload was checked');
  return problems;
}

export function selectWith(value: string, actionId?: string): Element {
  return {
    type: 'static_select',
    ...(actionId ? { action_id: actionId } : {}),
    placeholder: { type: 'plain_text', text: 'Set status' },
    options: [{ text: { type: 'plain_text', text: 'Forged' }, value }],
  };
}

export function buttonWith(value: string): Element {
  return { type: 'button', text: { type: 'plain_text', text: 'Forged' }, value };
}

/** Reads the pipeline until `done` holds (the app writes after acknowledging the click). */
export async function waitForPipeline(
  service: ProcurementClient,
  id: string,
  done: (pipeline: Pipeline) => boolean,
): Promise<Pipeline> {
  const started = Date.now();
  for (;;) {
    const pipeline = await service.pipelines.get(id);
    if (done(pipeline)) return pipeline;
    if (Date.now() - started > 8000) throw new Error(`timed out waiting for ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
