import { type Mrkdwn, mrkdwn, text } from './mrkdwn.ts';

/**
 * Whose key a card was drawn with, said in words on the card itself: the service answers as the
 * key's maker, so bookmarks, comments and bids depend on it. (The same union as the adapters'
 * KeySource; views do not import adapters.)
 */
export type KeySource = 'personal' | 'workspace' | 'default';

/** The key, as the subject of a sentence. */
export function keyPhrase(source: KeySource): string {
  switch (source) {
    case 'personal':
      return 'your own key';
    case 'workspace':
      return 'this workspace’s key';
    case 'default':
      return 'the key Tenderbot was set up with';
  }
}

/** Under a bookmark list: whose list it is, and how to change that. */
export function bookmarksOwnerLine(source: KeySource): Mrkdwn {
  if (source === 'personal')
    return mrkdwn`These are *your own* bookmarks: you linked your own key, so this list is yours alone. \`/tender disconnect me\` goes back to the workspace’s shared list.`;
  const maker =
    source === 'workspace'
      ? 'whoever made the key this workspace connected'
      : 'whoever made the key Tenderbot was set up with';
  return mrkdwn`Bookmarks belong to ${text(maker)}, so everyone here shares this one list. \`/tender connect me\` links a key of your own, with a list of your own.`;
}

/** Under search results and a tender in full: which list the Bookmark buttons change. */
export function bookmarkButtonsLine(source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`Bookmark buttons here change your own list.`
    : mrkdwn`Bookmark buttons here change the workspace’s shared list.`;
}

/** In the comment window: who the service will show as the comment's author. */
export function commentAuthorLine(source: KeySource): Mrkdwn {
  return source === 'personal'
    ? mrkdwn`Posted with your own key: the service shows you as the author.`
    : mrkdwn`Posted with ${text(keyPhrase(source))}: the service shows its maker as the author, and Tenderbot notes that you wrote it. \`/tender connect me\` lets you post as yourself.`;
}

/** Under a list of bids: whose bids these are (to a guest, who starts none, only whose they see). */
export function bidsOwnerLine(source: KeySource, guest = false): Mrkdwn {
  if (guest)
    return source === 'personal'
      ? mrkdwn`Bids your own key can see: yours, and those shared with you.`
      : mrkdwn`Bids ${text(keyPhrase(source))} can see: its maker’s, and those shared with them.`;
  return source === 'personal'
    ? mrkdwn`Bids your own key can see: yours, and those shared with you. Bids you start belong to you.`
    : mrkdwn`Bids ${text(keyPhrase(source))} can see: its maker’s, and those shared with them. Bids started here belong to its maker; \`/tender connect me\` lets you start your own.`;
}
