import { decodeText, encode } from '../../shared/values/codec.ts';

/** What `/tender connect me` says the key is for, in the connect modal's private_metadata (before the codec's part). */
const FOR_ME = 'me:';

/** The connect modal's private_metadata: the channel to answer in, marked `me:` for a person's own key. */
export function connectMetadata(channelId: string | null, forMe: boolean): string {
  return (forMe ? FOR_ME : '') + encode('connectMetadata', { channelId }, 'metadata');
}

/**
 * The modal's private_metadata: the channel to answer in, and whether the key is the person's own.
 * A forged or broken one means "no channel to answer in"; `me:` only ever narrows what is saved
 * (a person's own key), and the workspace's key is saved only for those who may change it.
 */
export function safeMetadata(text: string): { channelId: string | null; forMe: boolean } {
  const forMe = text.startsWith(FOR_ME);
  try {
    return { ...decodeText('connectMetadata', forMe ? text.slice(FOR_ME.length) : text), forMe };
  } catch {
    return { channelId: null, forMe };
  }
}
