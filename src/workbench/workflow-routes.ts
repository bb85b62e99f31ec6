/*
 * The workbench's "Workflows" page (/workflows): pick one of the app's Workflow Builder steps, fill
 * its inputs, run it as Workflow Builder would (the fake Slack's function_executed), see its
 * outputs or the sentence it failed with.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import type { ExtraRoute, FakeSlack } from '../fake-slack/fake-slack.ts';
import type { FunctionDefinition, FunctionRun } from '../fake-slack/functions.ts';

const PUBLIC_DIR = join(import.meta.dirname, 'public');
const MANIFEST = join(import.meta.dirname, '../../manifest.yml');

const STATIC_FILES: Record<string, { file: string; contentType: string }> = {
  '/workflows': { file: 'workflows.html', contentType: 'text/html; charset=utf-8' },
  '/workflows.js': { file: 'workflows.js', contentType: 'text/javascript; charset=utf-8' },
  '/workflows.css': { file: 'workflows.css', contentType: 'text/css; charset=utf-8' },
};

/** How long the page waits for the app to end a run before saying it is still running. */
const RUN_WAIT_MS = 15_000;

/** The steps the manifest declares (`functions`), or none. */
export function manifestFunctions(path = MANIFEST): Record<string, FunctionDefinition> {
  if (!existsSync(path)) return {};
  const manifest = parse(readFileSync(path, 'utf8')) as {
    functions?: Record<string, FunctionDefinition>;
  } | null;
  return manifest?.functions ?? {};
}

const RunBody = z.object({
  team: z.string().max(50).optional(),
  step: z.string().min(1).max(100),
  inputs: z.record(z.string().max(100), z.union([z.string().max(4000), z.number()])),
  /** Who starts the workflow: Slack fills the steps' `user_context` inputs with this person. */
  user: z.string().max(50).optional(),
  /** Runs an earlier execution again, as Slack does when it did not hear the step end. */
  again: z.string().max(50).optional(),
});

/** A run as the page shows it. */
function shownRun(run: FunctionRun) {
  return {
    executionId: run.executionId,
    step: run.callbackId,
    state: run.state,
    outputs: run.outputs,
    error: run.error,
  };
}

/** The parameters of a step in the manifest's order, as the page draws its fields. */
function parametersOf(declared: FunctionDefinition['input_parameters']) {
  return Object.entries(declared).map(([name, parameter]) => ({
    name,
    type: parameter.type,
    title: parameter.title ?? name,
    description: parameter.description ?? '',
    required: parameter.is_required === true,
  }));
}

/**
 * Serves the Workflows page and its two JSON routes (`/workflows/steps`, `/workflows/run`), and
 * declares the manifest's steps in every workspace. `refuse` is the workbench's own check that a
 * request comes from its page (workbench-routes.ts).
 */
export function addWorkflowRoutes(
  fakeSlack: FakeSlack,
  refuse: (method: string, headers: IncomingHttpHeaders) => { status: number; reason: string } | null,
  manifestPath?: string,
): void {
  const functions = manifestFunctions(manifestPath);
  for (const workspace of fakeSlack.workspaces) workspace.workflows.declare(functions);
  const files = new Map(
    Object.entries(STATIC_FILES).map(([path, { file, contentType }]) => [
      path,
      { body: readFileSync(join(PUBLIC_DIR, file), 'utf8'), contentType },
    ]),
  );
  const json = (status: number, body: unknown) => ({
    status,
    contentType: 'application/json; charset=utf-8',
    body: JSON.stringify(body),
  });
  const route: ExtraRoute = async ({ method, path, query, headers, body }) => {
    const file = method === 'GET' ? files.get(path) : undefined;
    if (file) return { status: 200, contentType: file.contentType, body: file.body };
    if (path !== '/workflows/steps' && path !== '/workflows/run') return null;
    const refusal = refuse(method, headers);
    if (refusal) return json(refusal.status, { error: refusal.reason });
    if (path === '/workflows/steps' && method === 'GET') {
      const slack = fakeSlack.workspaces.find((team) => team.teamId === query.get('team')) ?? fakeSlack;
      // A workspace added after start learns the steps when first shown.
      if (Object.keys(slack.workflows.definitions).length === 0) slack.workflows.declare(functions);
      return json(200, {
        team: slack.teamId,
        steps: Object.entries(functions).map(([callbackId, step]) => ({
          callbackId,
          title: step.title,
          description: step.description,
          inputs: parametersOf(step.input_parameters),
          outputs: parametersOf(step.output_parameters),
        })),
        users: slack.users.map((user) => ({ id: user.id, name: user.realName })),
        channels: slack.channels.map((channel) => ({ id: channel.id, name: channel.name })),
        runs: slack.workflows.runs.slice(-10).reverse().map(shownRun),
      });
    }
    if (path !== '/workflows/run' || method !== 'POST') return json(405, { error: 'not here' });
    let parsed: z.infer<typeof RunBody>;
    try {
      parsed = RunBody.parse(JSON.parse(body));
    } catch {
      return json(400, { error: 'the body must name a step and its inputs' });
    }
    const slack = fakeSlack.workspaces.find((team) => team.teamId === (parsed.team || fakeSlack.teamId));
    if (!slack) return json(400, { error: 'unknown workspace' });
    if (!(parsed.step in functions)) return json(400, { error: 'the app declares no such step' });
    // What Workflow Builder sends: the filled inputs only (an empty field is an input not set).
    const inputs = Object.fromEntries(Object.entries(parsed.inputs).filter(([, value]) => value !== ''));
    try {
      const { run, answer } = await slack.workflows.run(parsed.step, inputs, {
        ...(parsed.again ? { executionId: parsed.again } : {}),
        ...(parsed.user ? { user: parsed.user } : {}),
      });
      const ended = await Promise.race([
        run.ended,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), RUN_WAIT_MS).unref()),
      ]);
      return json(200, { ...shownRun(ended ?? run), acknowledged: answer.status });
    } catch (error) {
      return json(502, { error: error instanceof Error ? error.message : String(error) });
    }
  };
  fakeSlack.addRoute(route);
}
