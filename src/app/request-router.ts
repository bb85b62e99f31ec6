import type { AllMiddlewareArgs, AnyMiddlewareArgs, App, Middleware } from '@slack/bolt';
import type { RespondAt } from './adapters/slack-fetch.ts';
import { respondWithoutResponseUrl } from './adapters/tell-person.ts';
import type { ControlRouter, UnknownControlAnswers } from './shared/controls/control-registry.ts';

/** What a listener is given: what Bolt gives a global middleware, which has the same fields. */
type Args = AnyMiddlewareArgs & AllMiddlewareArgs;
type Listener = (args: never) => Promise<void> | void;

/** A request a person made (a command, a click, a shortcut, a submission): Bolt types it with a `respond`. */
function fromAPerson(body: unknown): boolean {
  const { type, command } = body as { type?: unknown; command?: unknown };
  return (
    typeof command === 'string' ||
    type === 'block_actions' ||
    type === 'view_submission' ||
    type === 'shortcut' ||
    type === 'message_action'
  );
}

/** The registration the features use for commands and events: Bolt's own signatures. */
type CommandsAndEvents = Pick<App, 'command' | 'event'>;

/**
 * The one place Bolt hands a request to Tenderbot: a single global middleware that finds the
 * listener by kind and id through maps (the `/tender` command, a control through the controls
 * registry, an event by its type) and calls it. Bolt's own dispatch runs the matching middleware of
 * every registered listener for every request (an object copy, an async call and a promise each),
 * which profiles of `bench:bot` showed as the app's largest single cost after garbage collection.
 * Anything not routed here (a Workflow Builder step's run, an interactive message of the older
 * attachments, a window closed) goes on to Bolt's listeners, registered as before.
 */
export class RequestRouter {
  constructor(
    /** A leaner `respond` than Bolt's (no fetch Response built per answer); none: Bolt's. */
    private readonly respondAt?: RespondAt,
  ) {}

  private readonly commands = new Map<string, Listener>();
  private readonly events = new Map<string, Listener>();

  /** Registration for the features, typed as Bolt's `app.command` and `app.event` (one listener each). */
  readonly registrar: CommandsAndEvents = {
    command: ((name: unknown, ...listeners: unknown[]) =>
      this.add(this.commands, 'command', name, listeners)) as unknown as App['command'],
    event: ((name: unknown, ...listeners: unknown[]) =>
      this.add(this.events, 'event', name, listeners)) as unknown as App['event'],
  };

  /** Makes this the app's request router (after Bolt's built-in middleware, e.g. ignoring its own messages). */
  attach(app: App, controls: ControlRouter, unknown: UnknownControlAnswers): void {
    const route: Middleware<AnyMiddlewareArgs> = async (args) => {
      const listener = this.listenerOf(args as Args, controls, unknown);
      if (!listener) return args.next();
      // Bolt made `args` for this middleware alone: its respond can be replaced here.
      const answering = args as unknown as { respond?: unknown };
      const url = (args.body as { response_url?: unknown }).response_url;
      if (this.respondAt && typeof url === 'string' && url !== '' && answering.respond)
        answering.respond = this.respondAt(url);
      // Bolt gives no respond where Slack sent no response_url (a click in the Home tab or a modal),
      // though its types promise one: every listener gets one that answers the person where they are.
      else if (!answering.respond && fromAPerson(args.body))
        answering.respond = respondWithoutResponseUrl((args as Args).client, args.body);
      await listener(args as never);
    };
    app.use(route);
  }

  /** The listener of a request, as Bolt's matching of the listeners registered before chose it; none: Bolt's. */
  private listenerOf(
    args: Args,
    controls: ControlRouter,
    unknown: UnknownControlAnswers,
  ): Listener | undefined {
    const body = args.body as { type?: unknown; command?: unknown; event?: { type?: unknown } };
    if (typeof body.command === 'string') return this.commands.get(body.command);
    switch (body.type) {
      case 'block_actions': {
        // Bolt's app.action(/^/) took block actions with an action (`args.action`).
        const action = (args as { action?: { action_id?: unknown } }).action;
        if (!action) return undefined;
        const id = action.action_id;
        return ((typeof id === 'string' ? controls.find('action', id) : undefined) ??
          unknown.action) as Listener;
      }
      case 'view_submission': {
        const id = (args as { view?: { callback_id?: unknown } }).view?.callback_id;
        return ((typeof id === 'string' ? controls.find('view', id) : undefined) ?? unknown.view) as Listener;
      }
      case 'shortcut':
      case 'message_action': {
        const id = (body as { callback_id?: unknown }).callback_id;
        return ((typeof id === 'string' ? controls.find('shortcut', id) : undefined) ??
          unknown.shortcut) as Listener;
      }
      case 'block_suggestion': {
        const id = (body as { action_id?: unknown }).action_id;
        return ((typeof id === 'string' ? controls.find('options', id) : undefined) ??
          unknown.options) as Listener;
      }
      case 'event_callback': {
        const type = body.event?.type;
        return typeof type === 'string' ? this.events.get(type) : undefined;
      }
      default:
        return undefined;
    }
  }

  private add(map: Map<string, Listener>, kind: string, name: unknown, listeners: unknown[]): void {
    const [listener] = listeners;
    if (typeof name !== 'string' || listeners.length !== 1 || typeof listener !== 'function')
      throw new Error(`a ${kind} is registered by its name with one listener`);
    if (map.has(name)) throw new Error(`${kind} ${name} has a listener already`);
    map.set(name, listener as Listener);
  }
}
