import type { App } from '@slack/bolt';
import type { FeatureContext } from '../features/feature-context.ts';

/** The events these listeners subscribe to (the manifest declares them). */
export const REACH_EVENTS: readonly string[] = [];

/** Unfurls, shortcuts, the search builder, direct messages and the welcome; being built (issue 12). */
export function registerReachListeners(_app: App, _context: FeatureContext): void {}
