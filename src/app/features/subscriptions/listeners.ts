import type { ControlRouter } from '../../shared/controls/control-registry.ts';
import { buttonValue, onAction } from '../../shared/controls/on-action.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { SubscriptionIds } from '../../shared/ids.ts';
import { decode } from '../../shared/values/codec.ts';
import { sendNow } from './send-now.ts';
import { listMore, unsubscribe } from './subscription-list.ts';

/** The subscriptions list's "Send now" and "Unsubscribe", and a feed post's "…and N more". */
export function registerSubscriptionListeners(controls: ControlRouter, context: FeatureContext): void {
  const idOf = (value: string | undefined) => decode('record', value, context.store, context.clock());
  onAction(controls, context, SubscriptionIds.sendNow, async (request, action) =>
    sendNow(context, request, await idOf(buttonValue(action))),
  );
  onAction(controls, context, SubscriptionIds.unsubscribe, async (request, action) =>
    unsubscribe(context, request, await idOf(buttonValue(action)), true),
  );
  // From the post in the channel a new list appears; its own Next and Previous redraw it.
  for (const id of [SubscriptionIds.listMore, SubscriptionIds.listMorePrevious]) {
    onAction(controls, context, id, async (request, action, body) =>
      listMore(context, request, buttonValue(action), Boolean(body.container?.is_ephemeral)),
    );
  }
}
