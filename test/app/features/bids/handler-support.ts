import { randomUUID } from 'node:crypto';
import type { Pipeline } from '../../../../src/contract/schemas.ts';
import type { FakeMessage } from '../../../../src/fake-slack/fake-slack.ts';
import type { FakeView } from '../../../../src/fake-slack/types.ts';
import type { HandlerHarness } from '../../../support/handler-context.ts';

/** A fresh bid made with the workspace's key (Carol's), so each test changes its own; on no tender unless given one. */
export async function newBid(
  harness: HandlerHarness,
  name: string,
  stages: string[] = ['Qualify', 'Write'],
  tenderId: string | null = null,
): Promise<Pipeline> {
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  return client.pipelines.create(
    {
      name,
      tenderId,
      summary: null,
      targetSubmissionDate: null,
      stages: stages.map((stage) => ({ name: stage })),
    },
    { idempotencyKey: randomUUID() },
  );
}

/** The bid as the service holds it now, read with the workspace's key. */
export async function bidNow(harness: HandlerHarness, id: string): Promise<Pipeline> {
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  return client.pipelines.get(id);
}

/** The stage of a bid by its position on the card (1 first). */
export function stageAt(pipeline: Pipeline, number: number): Pipeline['stages'][number] {
  const stage = [...pipeline.stages].sort((a, b) => a.position - b.position)[number - 1];
  if (!stage) throw new Error(`no stage ${number} in ${pipeline.id}`);
  return stage;
}

/** Every card in the channel that shows the bid (posted for everyone, not a thread reply). */
export function cardsOf(harness: HandlerHarness, channel: string, pipelineId: string): FakeMessage[] {
  return harness.slack
    .messagesIn(channel)
    .filter(
      (message) =>
        message.ephemeralTo === null &&
        message.threadTs === null &&
        message.metadata?.event_payload?.pipeline_id === pipelineId,
    );
}

/** A modal opened by `open` (given a fresh trigger_id, as a click gives) as Slack holds it after. */
export async function modalOpenedBy(
  harness: HandlerHarness,
  userId: string,
  open: (triggerId: string) => Promise<void>,
): Promise<FakeView> {
  const before = new Set(harness.slack.openModals(userId).map((view) => view.id));
  await open(harness.slack.workspaceState.newTrigger(userId));
  const opened = harness.slack.openModals(userId).find((view) => !before.has(view.id));
  if (!opened) throw new Error('no modal was opened');
  return opened;
}

/** The action ids of every element in some Block Kit JSON. */
export function actionIdsIn(json: unknown): string[] {
  return [...JSON.stringify(json).matchAll(/"action_id":"([^"]+)"/g)].map((match) => match[1] as string);
}

/** `day` (`YYYY-MM-DD`) moved by `days`. */
export function dayAfter(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Tenders still open (deadline ahead), `count` of them, none of them TENDER_A: each test its own. */
export async function openTenders(
  harness: HandlerHarness,
  count: number,
  skip: readonly string[] = [],
): Promise<{ id: string; closing: string; deadline: string }[]> {
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  const found = await client.tenders.search({ status: 'open', limit: 50 });
  const open = found.data.filter(
    (tender) =>
      tender.deadline &&
      Date.parse(tender.deadline) > Date.now() + 2 * 86_400_000 &&
      !skip.includes(tender.id),
  );
  if (open.length < count) throw new Error(`only ${open.length} open tenders`);
  return open.slice(0, count).map((tender) => ({
    id: tender.id,
    closing: (tender.deadline as string).slice(0, 10),
    deadline: tender.deadline as string,
  }));
}
