/** What other features may use of subscriptions: subscribing a channel as the command does, and saying what one posts. */
export { subscriptionSummary } from './describe.ts';
export { subscriptionCommand } from './subscriptions.ts';
