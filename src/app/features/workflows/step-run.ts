/*
 * What every Workflow Builder step shares: who runs it and with which key (the rules of commands),
 * the sentence it fails with, and the memory that makes a step Slack runs again do its work once.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { AppSlack } from '../../adapters/app-slack.ts';
import type { WorkspaceClient } from '../../adapters/workspace-clients.ts';
import { PersonalKeyRequiredError } from '../../shared/errors.ts';
import { describeFailure, PERSONAL_KEY_REQUIRED_SENTENCE } from '../../shared/failure-sentences.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { type PlainSentence, plainOf, plainSentence } from '../../shared/views/plain-sentence.ts';

/** One run of a step, as `function_executed` gives it. */
export interface StepRun {
  teamId: string;
  /** Slack's id of this run: the same when Slack runs the step again. */
  executionId: string;
  inputs: Record<string, unknown>;
  /** The Web API client holding the run's workflow token. */
  slack: AppSlack;
}

/** A step's outputs; null for a step that stays running until a click in its message ends it. */
export type StepOutputs = Record<string, string | number> | null;

/** How a step's work ends: its outputs, or the sentence Workflow Builder shows. */
export type StepOutcome = { outputs: StepOutputs } | { error: PlainSentence };

/** A step's refusal that is the person's to mend: the run fails with this plain-text sentence. */
export class StepRefusal extends Error {
  constructor(readonly sentence: PlainSentence) {
    super(sentence);
  }
}

/** A text input, trimmed; '' when absent. */
export function textInput(run: StepRun, name: string): string {
  const value = run.inputs[name];
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

/** A required text input, or a refusal naming it. */
export function requiredInput(run: StepRun, name: string, label: string): string {
  const value = textInput(run, name);
  if (!value) throw new StepRefusal(plainSentence`The step needs ${label}, and none was given.`);
  return value;
}

/**
 * The person the workflow runs for: Slack's `user_context` input, which Slack fills from the
 * trigger (or a click in an earlier step) and which no workflow author can set. A free
 * `slack#/types/user_id` input is only ever a label: anyone building the workflow could name anyone.
 */
export function actorOf(run: StepRun): string | null {
  const context = run.inputs.user_context;
  if (typeof context !== 'object' || context === null) return null;
  const id = (context as { id?: unknown }).id;
  return typeof id === 'string' && /^[UW][A-Z0-9]+$/.test(id) ? id : null;
}

/** True for a step set up before the person came from Slack (its old, free "Person" input). */
function hasOldPersonInput(run: StepRun): boolean {
  return textInput(run, 'user_id') !== '';
}

/** The key a step reads with: the runner's own where linked, else the workspace's (as commands). */
export async function readerOf(context: FeatureContext, run: StepRun): Promise<WorkspaceClient> {
  const userId = actorOf(run);
  return userId ? context.clients.forPerson(run.teamId, userId) : context.clients.forTeam(run.teamId);
}

/** Guests may read, but a step that writes or posts for one fails, as their commands do. */
export async function refuseGuest(
  context: FeatureContext,
  teamId: string,
  userId: string,
  action: string,
): Promise<void> {
  if ((await context.users.facts(userId, teamId)).isGuest)
    throw new StepRefusal(
      plainSentence`Guests can read tenders but cannot ${action}. Ask a member of the workspace to run this workflow.`,
    );
}

/**
 * The key a step changes something with, under the rules of commands: the person Slack says runs
 * the workflow is needed, guests are refused, and where the workspace asks for personal keys the
 * person must have linked one.
 */
export async function writerOf(
  context: FeatureContext,
  run: StepRun,
  action: string,
): Promise<{ client: WorkspaceClient['client']; source: WorkspaceClient['source']; userId: string }> {
  const userId = actorOf(run);
  if (!userId)
    throw new StepRefusal(
      hasOldPersonInput(run)
        ? plainSentence`To ${action}, the step needs the person who runs the workflow, and Slack did not say who that is. Its “Person” input no longer chooses whose key is used (anyone building a workflow could name anyone): start the workflow from a link, a shortcut or a button, or add a step someone clicks before this one.`
        : plainSentence`To ${action}, the step needs the person who runs the workflow, and Slack did not say who that is: start the workflow from a link, a shortcut or a button, or add a step someone clicks before this one.`,
    );
  await refuseGuest(context, run.teamId, userId, action);
  try {
    const writer = await context.clients.forWrite(run.teamId, userId);
    return { client: writer.client, source: writer.source, userId };
  } catch (error) {
    if (error instanceof PersonalKeyRequiredError)
      throw new StepRefusal(plainOf(PERSONAL_KEY_REQUIRED_SENTENCE));
    throw error;
  }
}

/**
 * A UUID made from the run's id and the step: the service's Idempotency-Key, the same on every
 * run of one execution (and on every copy of the app), so a creation is made once.
 */
export function idempotencyKeyOf(executionId: string, step: string): string {
  const hex = createHash('sha256')
    .update(`tenderbot-workflow\u0000${step}\u0000${executionId}`)
    .digest('hex');
  // Laid out as a UUID of version 5 (name-based), with the RFC 4122 variant.
  const variant = ((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Runs under way or just ended, by execution id: a run Slack sends again meanwhile waits for the first. */
const running = new Map<string, Promise<StepOutcome>>();
/** How long a finished run's outcome is kept for a repeat (Slack retries within minutes). */
const REMEMBERED_MS = 10 * 60_000;

/** How long a run's claim and outcome are kept in the bot's store (Slack gives up on a run well before). */
const CLAIM_MS = 24 * 60 * 60_000;
/** How long a copy that lost the claim waits for the other's outcome, and how often it looks. */
const OTHER_COPY_WAIT_MS = 30_000;
const OTHER_COPY_POLL_MS = 250;

/**
 * Runs a step once per execution, across every copy of the app: the execution is claimed in the
 * bot's store, and its outcome kept there, so another copy (or a rerun after this copy forgot it)
 * answers the same outcome instead of posting twice. Within one copy a rerun waits for the first.
 * Any failure becomes a sentence with a reference that is also in the log.
 */
export function runStepOnce(
  context: FeatureContext,
  run: StepRun,
  step: string,
  work: () => Promise<StepOutputs>,
): Promise<StepOutcome> {
  const key = `${run.teamId}\u0000${step}\u0000${run.executionId}`;
  const earlier = running.get(key);
  if (earlier) return earlier;
  const outcome = claimedOrEarlier(context, run, step, () =>
    work().then(
      (outputs): StepOutcome => ({ outputs }),
      (error): StepOutcome => {
        if (error instanceof StepRefusal) return { error: error.sentence };
        const reference = randomUUID().slice(0, 8);
        context.logger.warn(
          { err: error, reference, teamId: run.teamId, step, executionId: run.executionId },
          'workflow step failed',
        );
        return {
          error: plainSentence`${plainOf(describeFailure(error).sentence)} (Reference: ${reference}.)`,
        };
      },
    ),
  );
  running.set(key, outcome);
  void outcome.then((ended) => {
    // This copy forgets a failure at once (the store keeps the sentence for a lost ending).
    if ('error' in ended) running.delete(key);
    else setTimeout(() => running.delete(key), REMEMBERED_MS).unref();
  });
  return outcome;
}

/** What an outcome kept in the store reads as; null for anything else. */
function keptOutcome(json: string | null): StepOutcome | null {
  if (json === null) return null;
  const kept = JSON.parse(json) as { outputs?: StepOutputs; error?: string };
  if (typeof kept.error === 'string') return { error: kept.error as PlainSentence };
  return 'outputs' in kept ? { outputs: kept.outputs ?? null } : null;
}

/**
 * The work's outcome when this copy claims the execution first (kept for the others), else the
 * outcome the claiming copy kept. A failure is kept too but releases nothing: Slack ends a failed
 * run, so only a lost ending brings it back, and it then gets the same sentence.
 */
async function claimedOrEarlier(
  context: FeatureContext,
  run: StepRun,
  step: string,
  work: () => Promise<StepOutcome>,
): Promise<StepOutcome> {
  const claim = `workflow-step:${run.teamId}:${step}:${run.executionId}`;
  const until = new Date(context.clock().getTime() + CLAIM_MS);
  if (await context.store.rememberRequest(claim, until)) {
    const outcome = await work();
    await context.store
      .saveState(`${claim}:outcome`, JSON.stringify(outcome), until)
      .catch((error) =>
        context.logger.warn({ err: error, step }, 'could not keep a workflow step’s outcome'),
      );
    return outcome;
  }
  // Another copy (or this one, before a restart) has it: its outcome, once kept.
  for (let waited = 0; waited <= OTHER_COPY_WAIT_MS; waited += OTHER_COPY_POLL_MS) {
    const kept = keptOutcome(await context.store.loadState(`${claim}:outcome`, context.clock()));
    if (kept) return kept;
    await new Promise((resolve) => setTimeout(resolve, OTHER_COPY_POLL_MS));
  }
  return {
    error: plainSentence`This step is already running for this workflow run elsewhere, and did not end in time. Nothing was done twice; run the workflow again if it did not finish.`,
  };
}
