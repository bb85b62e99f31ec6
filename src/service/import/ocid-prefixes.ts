/**
 * Publishers known by their ocid prefix; anything else takes the package's publisher name. What
 * follows the prefix is the notice reference the publisher prints (a Contracts Finder notice id,
 * a Buyandsell number), so a printed reference finds its tender.
 */
export const SOURCES_BY_OCID_PREFIX: [string, string][] = [
  ['ocds-b5fd17-', 'Contracts Finder'],
  ['ocds-r6ebe6-', 'Public Contracts Scotland'],
  ['ocds-kuma6s-', 'Sell2Wales'],
  ['ocds-canada-bas-', 'Buyandsell.gc.ca'],
  ['ocds-ccs-', 'Crown Commercial Service'],
  ['ocds-h6vhtk-', 'Find a Tender'],
];
