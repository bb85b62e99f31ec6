import type { App } from '@slack/bolt';
import type { FeatureContext } from '../features/feature-context.ts';

/** Buttons of the subscriptions list ("Send now", "Unsubscribe"); being built (issue 9). */
export function registerSubscriptionListeners(_app: App, _context: FeatureContext): void {}
