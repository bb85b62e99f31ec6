/** What other features may use of subscriptions: subscribing a channel as the command does. */
export { subscriptionCommand } from './subscriptions.ts';
