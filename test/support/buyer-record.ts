import { Buyer } from '../../src/contract/schemas.ts';

/** A buyer as the service answers one (Scotland, no address), for views drawn from buyers. */
export function buyerRecord(name: string, id: string, noticeCount = 3): Buyer {
  return Buyer.parse({
    id,
    name,
    region: 'Scotland',
    locality: null,
    postalCode: null,
    countryCode: 'GB',
    identifiers: [],
    website: null,
    noticeCount,
    type: null,
  });
}
