import type { ControlRouter } from '../../shared/controls/control-registry.ts';
import { onButton } from '../../shared/controls/on-action.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { SearchIds, TenderIds } from '../../shared/ids.ts';
import { decode } from '../../shared/values/codec.ts';
import { showSearchPage } from './search.ts';
import { shareTender } from './share-tender.ts';
import { showCommand, toggleBookmark } from './tender-detail.ts';

/** A search page's Next, Previous and other buyers; a card's Bookmark, Share, Open and original link. */
export function registerTenderListeners(controls: ControlRouter, context: FeatureContext): void {
  const idOf = (value: string | undefined) => decode('record', value, context.store, context.clock());
  // `search/other_buyer/0`… are one numbered row of the registry.
  for (const actionId of [SearchIds.next, SearchIds.previous, SearchIds.otherBuyer]) {
    onButton(controls, context, actionId, async (request, value) =>
      showSearchPage(
        context,
        request,
        await decode('searchPage', value, context.store, context.clock()),
        true,
      ),
    );
  }
  for (const [actionId, add] of [
    [TenderIds.bookmark, true],
    [TenderIds.removeBookmark, false],
  ] as const) {
    onButton(controls, context, actionId, async (request, value, body) => {
      // Who shared the card travels in the value: state is never read back from rendered text.
      const { t, c, s } = await decode('bookmark', value, context.store, context.clock());
      await toggleBookmark(context, request, { tenderId: t, place: c, ...(s ? { sharedBy: s } : {}) }, add, {
        isEphemeral: Boolean(body.container?.is_ephemeral),
        messageTs: body.container?.message_ts ?? body.message?.ts ?? null,
      });
    });
  }
  onButton(controls, context, TenderIds.share, async (request, value) =>
    shareTender(context, request, await idOf(value)),
  );
  // "Open" on a notice in a buyer's, supplier's or framework's panel: the tender in full.
  onButton(controls, context, TenderIds.show, async (request, value) =>
    showCommand(context, request, await idOf(value)),
  );
  // A URL button still sends an action; there is nothing more to do than acknowledge it.
  controls.action(TenderIds.openOriginal, async ({ ack }) => ack());
}
