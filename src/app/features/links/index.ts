/** What other features may use of links: answering a person in their direct messages with Tenderbot. */
export { directMessageRequest, leavePointerToDirectMessages } from './direct-messages.ts';
