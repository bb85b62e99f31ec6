import { randomBytes } from 'node:crypto';
import { viewProblems } from './block-rules.ts';
import type { Args, WebAnswer } from './web-api-types.ts';
import type { Workspace } from './workspace.ts';

/** A new view's state as Slack stores it: no input values yet, and a fresh hash. */
function stored(workspace: Workspace, view: Args, id: string): Args {
  return {
    ...view,
    id,
    team_id: workspace.teamId,
    state: { values: {} },
    hash: randomBytes(4).toString('hex'),
  };
}

/** `views.open`, `views.push`, `views.update` and `views.publish`, as Slack answers them. */
export function viewsMethod(workspace: Workspace, method: string, args: Args): WebAnswer | null {
  if (!method.startsWith('views.')) return null;
  // A view breaking Slack's limits is refused before anything else, with Slack's pointers to why.
  const problems = ['views.open', 'views.push', 'views.update', 'views.publish'].includes(method)
    ? viewProblems(args.view)
    : [];
  if (problems.length > 0)
    return { ok: false, error: 'invalid_arguments', response_metadata: { messages: problems } };
  switch (method) {
    case 'views.open':
    case 'views.push': {
      const trigger = workspace.takeTrigger(args.trigger_id);
      if ('error' in trigger) return { ok: false, error: trigger.error };
      // Slack keeps at most three views in a modal's stack.
      if (method === 'views.push' && workspace.openModals(trigger.userId).length >= 3)
        return { ok: false, error: 'push_limit_reached' };
      const id = workspace.newViewId();
      const view = stored(workspace, args.view, id);
      workspace.views.set(id, { id, view, userId: trigger.userId, kind: 'modal' });
      return { ok: true, view };
    }
    case 'views.update': {
      const existing = args.view_id
        ? workspace.views.get(args.view_id)
        : [...workspace.views.values()].find((view) => view.view.external_id === args.external_id);
      if (!existing) return { ok: false, error: 'not_found' };
      // With a hash, an update made from an older copy of the view is refused, as in Slack.
      if (args.hash && args.hash !== existing.view.hash) return { ok: false, error: 'hash_conflict' };
      existing.view = stored(workspace, args.view, existing.id);
      return { ok: true, view: existing.view };
    }
    case 'views.publish': {
      const existing = workspace.homeOf(args.user_id);
      if (existing && args.hash && args.hash !== existing.view.hash)
        return { ok: false, error: 'hash_conflict' };
      const id = existing?.id ?? workspace.newViewId();
      const view = { ...args.view, id, team_id: workspace.teamId, hash: randomBytes(4).toString('hex') };
      workspace.views.set(id, { id, view, userId: args.user_id, kind: 'home' });
      return { ok: true, view };
    }
    default:
      return null;
  }
}
