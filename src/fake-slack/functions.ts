/*
 * Workflow Builder runs the app's custom steps (../shared/SLACK.md): each run is a
 * `function_executed` event carrying a short-lived workflow token (`xwfp-…`), ended by
 * `functions.completeSuccess` or `functions.completeError`, refused as Slack refuses them.
 */
import { randomBytes } from 'node:crypto';
import type { AppAnswer } from './types.ts';
import type { Args, WebAnswer } from './web-api-types.ts';
import type { Workspace } from './workspace.ts';

/** A step as the app's manifest declares it (`functions.<callback_id>`). */
export interface FunctionDefinition {
  title: string;
  description: string;
  input_parameters: Record<string, FunctionParameter>;
  output_parameters: Record<string, FunctionParameter>;
}

export interface FunctionParameter {
  type: string;
  title?: string;
  description?: string;
  is_required?: boolean;
}

/** One run of a step: running until the app ends it, then completed (outputs) or failed (an error). */
export interface FunctionRun {
  executionId: string;
  workflowExecutionId: string;
  callbackId: string;
  inputs: Record<string, unknown>;
  workflowToken: string;
  state: 'running' | 'completed' | 'failed';
  outputs: Record<string, unknown> | null;
  error: string | null;
  /** Resolves when the app ends the run. */
  ended: Promise<FunctionRun>;
}

/** The runs of one workspace, and the steps the app declared there. */
class FunctionRuns {
  readonly runs = new Map<string, FunctionRun & { end(): void }>();
  /** The messages a run posted with its workflow token (`channel ts` → execution id). */
  readonly posts = new Map<string, string>();
  definitions: Record<string, FunctionDefinition> = {};
}

const runsOfWorkspace = new WeakMap<Workspace, FunctionRuns>();

function runsOf(workspace: Workspace): FunctionRuns {
  let runs = runsOfWorkspace.get(workspace);
  if (!runs) {
    runs = new FunctionRuns();
    runsOfWorkspace.set(workspace, runs);
  }
  return runs;
}

type SendEvent = (
  event: Record<string, unknown>,
  options?: { eventId?: string; retryNum?: number },
) => Promise<AppAnswer>;

/** Workflow Builder in one workspace: the app's declared steps, their runs, and running one. */
export class WorkflowBuilder {
  constructor(
    private readonly workspace: Workspace,
    private readonly sendEvent: SendEvent,
  ) {}

  /** Tells the workspace the app's steps (the manifest's `functions`), as installing its manifest does. */
  declare(definitions: Record<string, FunctionDefinition>): void {
    runsOf(this.workspace).definitions = definitions;
  }

  /** The steps the app declared. */
  get definitions(): Record<string, FunctionDefinition> {
    return runsOf(this.workspace).definitions;
  }

  /** Every run so far, oldest first. */
  get runs(): FunctionRun[] {
    return [...runsOf(this.workspace).runs.values()];
  }

  /**
   * Runs a step: sends `function_executed` and answers with the run (await `run.ended` for its
   * outputs) and the app's answer to the event. `executionId` of an earlier run runs it again, as
   * Slack does when it did not hear the run end (`retryNum` marks a redelivery of one event).
   * `inputs` are what the workflow's author set; `user` is who started the workflow (a link or a
   * button), which Slack puts in the step's `user_context` inputs and which no author can set.
   */
  async run(
    callbackId: string,
    inputs: Record<string, unknown>,
    options: { executionId?: string; retryNum?: number; eventId?: string; user?: string } = {},
  ): Promise<{ run: FunctionRun; answer: AppAnswer }> {
    const { run, event } = functionExecutedEvent(
      this.workspace,
      callbackId,
      inputs,
      options.executionId,
      options.user,
    );
    const answer = await this.sendEvent(event, {
      ...(options.eventId ? { eventId: options.eventId } : {}),
      ...(options.retryNum !== undefined ? { retryNum: options.retryNum } : {}),
    });
    return { run, answer };
  }
}

/**
 * A new run of a declared step (or the same run again, when `executionId` names one: Slack
 * running the step again): its `function_executed` event, with a workflow token that works until
 * the run ends. An undeclared step is refused here, as Workflow Builder only offers declared ones.
 */
function functionExecutedEvent(
  workspace: Workspace,
  callbackId: string,
  inputs: Record<string, unknown>,
  executionId?: string,
  user?: string,
): { run: FunctionRun; event: Record<string, unknown> } {
  const runs = runsOf(workspace);
  const definition = runs.definitions[callbackId];
  if (!definition) throw new Error(`the app declares no step ${callbackId}`);
  const run =
    (executionId ? runs.runs.get(executionId) : undefined) ??
    newRun(workspace, callbackId, withUserContext(definition, inputs, user), executionId);
  const parameters = (declared: Record<string, FunctionParameter>) =>
    Object.entries(declared).map(([name, parameter]) => ({ name, ...parameter }));
  const event = {
    type: 'function_executed',
    function: {
      id: `Fn${callbackId.length}${randomBytes(4).toString('hex').toUpperCase()}`,
      callback_id: callbackId,
      title: definition.title,
      description: definition.description,
      type: 'app',
      input_parameters: parameters(definition.input_parameters),
      output_parameters: parameters(definition.output_parameters),
      app_id: 'A0TENDERBOT',
      date_created: Math.floor(workspace.now() / 1000),
      date_updated: Math.floor(workspace.now() / 1000),
      date_deleted: 0,
    },
    inputs: run.inputs,
    function_execution_id: run.executionId,
    workflow_execution_id: run.workflowExecutionId,
    bot_access_token: run.workflowToken,
  };
  return { run, event };
}

/**
 * The author's inputs with Slack's `user_context` ones filled from who started the workflow. As in
 * Workflow Builder, an author cannot set one (it has no field), and a workflow whose step requires
 * one but that no person starts cannot be published (refused here, as an undeclared step is).
 */
function withUserContext(
  definition: FunctionDefinition,
  inputs: Record<string, unknown>,
  user: string | undefined,
): Record<string, unknown> {
  const filled = { ...inputs };
  for (const [name, parameter] of Object.entries(definition.input_parameters)) {
    if (parameter.type !== USER_CONTEXT) continue;
    if (name in inputs)
      throw new Error(`${name} is a user context: Slack fills it, a workflow cannot set it`);
    if (user) filled[name] = { id: user, secret: randomBytes(16).toString('hex') };
    else if (parameter.is_required)
      throw new Error(`${name} needs the person who starts the workflow: this workflow cannot be published`);
  }
  return filled;
}

const USER_CONTEXT = 'slack#/types/user_context';

function newRun(
  workspace: Workspace,
  callbackId: string,
  inputs: Record<string, unknown>,
  executionId = `Fx${randomBytes(5).toString('hex').toUpperCase()}`,
): FunctionRun & { end(): void } {
  let end = () => {};
  const run: FunctionRun & { end(): void } = {
    executionId,
    workflowExecutionId: `Wx${randomBytes(5).toString('hex').toUpperCase()}`,
    callbackId,
    inputs,
    workflowToken: `xwfp-${randomBytes(12).toString('hex')}`,
    state: 'running',
    outputs: null,
    error: null,
    ended: new Promise<FunctionRun>((resolve) => {
      end = () => resolve(run);
    }),
    end: () => end(),
  };
  runsOf(workspace).runs.set(executionId, run);
  // The workflow token acts in the workspace (posting, reading) while the run lasts.
  workspace.tokens.add(run.workflowToken);
  return run;
}

/** A required output missing, or a value of the wrong kind: Slack's `parameter_validation_failed`. */
function outputProblems(definition: FunctionDefinition, outputs: unknown): string[] {
  if (typeof outputs !== 'object' || outputs === null || Array.isArray(outputs))
    return ['outputs must be an object'];
  const given = outputs as Record<string, unknown>;
  const problems: string[] = [];
  for (const [name, parameter] of Object.entries(definition.output_parameters)) {
    const value = given[name];
    if (value === undefined || value === null) {
      if (parameter.is_required) problems.push(`missing required output ${name}`);
      continue;
    }
    const kind =
      parameter.type === 'integer' || parameter.type === 'number'
        ? 'number'
        : parameter.type === 'boolean'
          ? 'boolean'
          : 'string';
    if (typeof value !== kind || (parameter.type === 'integer' && !Number.isInteger(value)))
      problems.push(`output ${name} must be of type ${parameter.type}`);
  }
  for (const name of Object.keys(given))
    if (!(name in definition.output_parameters)) problems.push(`output ${name} is not declared`);
  return problems;
}

/** `functions.completeSuccess` and `functions.completeError`; null for any other method. */
export function functionsMethod(workspace: Workspace, method: string, args: Args): WebAnswer | null {
  if (method !== 'functions.completeSuccess' && method !== 'functions.completeError') return null;
  const runs = runsOf(workspace);
  const run = runs.runs.get(String(args.function_execution_id ?? ''));
  if (!run) return { ok: false, error: 'function_execution_not_found' };
  if (run.state !== 'running') return { ok: false, error: 'execution_not_in_running_state' };
  if (method === 'functions.completeError') {
    if (typeof args.error !== 'string' || args.error.trim() === '')
      return { ok: false, error: 'invalid_arguments' };
    run.state = 'failed';
    run.error = args.error;
  } else {
    const outputs = typeof args.outputs === 'string' ? safeJson(args.outputs) : args.outputs;
    const definition = runs.definitions[run.callbackId] as FunctionDefinition;
    const problems = outputProblems(definition, outputs);
    if (problems.length > 0)
      return { ok: false, error: 'parameter_validation_failed', response_metadata: { messages: problems } };
    run.state = 'completed';
    run.outputs = outputs as Record<string, unknown>;
  }
  // The run is over: its workflow token stops working.
  workspace.tokens.delete(run.workflowToken);
  run.end();
  return { ok: true };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Notes a message posted with a run's workflow token as the run's (`chat.postMessage`'s answer):
 * Slack sends clicks on its buttons with the run's `function_data`.
 */
export function noteRunPost(workspace: Workspace, token: string | undefined, answer: WebAnswer): void {
  const runs = runsOf(workspace);
  const run = [...runs.runs.values()].find((candidate) => candidate.workflowToken === token);
  if (run && answer.ok) runs.posts.set(`${answer.channel} ${answer.ts}`, run.executionId);
}

/**
 * What Slack adds to a click on a message a run posted: `function_data` (the run's id, step and
 * inputs) and the run's workflow token as `bot_access_token` (an ended run's token no longer works).
 */
export function functionFieldsOf(workspace: Workspace, channel: string, ts: string): Record<string, unknown> {
  const runs = runsOf(workspace);
  const run = runs.runs.get(runs.posts.get(`${channel} ${ts}`) ?? '');
  if (!run) return {};
  return {
    function_data: {
      execution_id: run.executionId,
      function: { callback_id: run.callbackId },
      inputs: run.inputs,
    },
    bot_access_token: run.workflowToken,
  };
}
