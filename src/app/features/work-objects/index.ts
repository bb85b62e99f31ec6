/** What other features may use of Work Objects: entities for link unfurls, and sending them. */
export { recogniseBidLink, type UnfurlTarget, unfurlEntities } from './entity-unfurls.ts';
export { bidEntity, tenderEntity } from './views/entities.ts';
