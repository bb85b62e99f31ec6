import type { ControlRouter } from '../../shared/controls/control-registry.ts';
import { onButton } from '../../shared/controls/on-action.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { DirectoryIds, SavedSearchIds } from '../../shared/ids.ts';
import { decode } from '../../shared/values/codec.ts';
import { runSavedSearch, showDirectoryEntry } from './directories.ts';

/** A directory row's details (buyer, supplier, framework), and a saved search's Run. */
export function registerDirectoryListeners(controls: ControlRouter, context: FeatureContext): void {
  const idOf = (value: string | undefined) => decode('record', value, context.store, context.clock());
  for (const [actionId, kind] of [
    [DirectoryIds.showBuyer, 'buyer'],
    [DirectoryIds.showSupplier, 'supplier'],
    [DirectoryIds.showFramework, 'framework'],
  ] as const) {
    onButton(controls, context, actionId, async (request, value) =>
      showDirectoryEntry(context, request, kind, await idOf(value)),
    );
  }
  onButton(controls, context, SavedSearchIds.run, async (request, value) =>
    runSavedSearch(context, request, await idOf(value)),
  );
}
