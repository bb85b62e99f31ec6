import type { BUYER_TYPES, TENDER_STATUSES } from '../../contract/schemas.ts';
import { toStoredInstant } from '../store/public-records-reader.ts';
import type { AwardInput, OrganisationInput, TenderReleaseInput } from '../store/public-records-writer.ts';
import { SOURCES_BY_OCID_PREFIX } from './ocid-prefixes.ts';

type Json = Record<string, unknown>;

/** UK NUTS 1 regions, so that `region:"North West"` finds notices coded UKD…. */
const UK_NUTS1_REGIONS: Record<string, string> = {
  UKC: 'North East',
  UKD: 'North West',
  UKE: 'Yorkshire and The Humber',
  UKF: 'East Midlands',
  UKG: 'West Midlands',
  UKH: 'East of England',
  UKI: 'London',
  UKJ: 'South East',
  UKK: 'South West',
  UKL: 'Wales',
  UKM: 'Scotland',
  UKN: 'Northern Ireland',
};

/** The UK's own region names, any case, to one spelling ("Yorkshire and the Humber" too). */
const UK_REGION_SPELLINGS = new Map(
  [...Object.values(UK_NUTS1_REGIONS), 'England'].map((name) => [name.toLowerCase(), name]),
);

/**
 * UK postcode areas (the letters before the first digit) by NUTS 1 region. Areas that straddle
 * two regions about evenly (DA, EN, HP, KT, SY) are left out: better "not stated" than wrong.
 */
const UK_POSTCODE_AREAS: Record<string, string> = Object.fromEntries(
  Object.entries({
    'North East': 'DH DL NE SR TS',
    'North West': 'BB BL CA CH CW FY L LA M OL PR SK WA WN',
    'Yorkshire and The Humber': 'BD DN HD HG HU HX LS S WF YO',
    'East Midlands': 'DE LE LN NG NN',
    'West Midlands': 'B CV DY HR ST TF WR WS WV',
    'East of England': 'AL CB CM CO IP LU NR PE SG SS WD',
    London: 'E EC N NW SE SW W WC BR CR HA IG RM SM TW UB',
    'South East': 'BN CT GU ME MK OX PO RG RH SL SO TN',
    'South West': 'BA BH BS DT EX GL PL SN SP TA TQ TR',
    Wales: 'CF LD LL NP SA',
    Scotland: 'AB DD DG EH FK G HS IV KA KW KY ML PA PH TD ZE',
    'Northern Ireland': 'BT',
  }).flatMap(([region, areas]) => areas.split(' ').map((area) => [area, region])),
);

/** Canadian postal codes by their first letter (X is shared by two territories: left out). */
const CANADIAN_POSTAL_LETTERS: Record<string, string> = {
  A: 'Newfoundland and Labrador',
  B: 'Nova Scotia',
  C: 'Prince Edward Island',
  E: 'New Brunswick',
  G: 'Quebec',
  H: 'Quebec',
  J: 'Quebec',
  K: 'Ontario',
  L: 'Ontario',
  M: 'Ontario',
  N: 'Ontario',
  P: 'Ontario',
  R: 'Manitoba',
  S: 'Saskatchewan',
  T: 'Alberta',
  V: 'British Columbia',
  Y: 'Yukon',
};

/** Values a source writes where it has no region: not a place narrower than a country. */
const NOT_A_REGION = new Set([
  'unknown',
  'n/a',
  'na',
  'none',
  'other',
  'uk',
  'united kingdom',
  'gb',
  'canada',
]);

const COUNTRY_CODES: Record<string, string> = {
  'united kingdom': 'GB',
  uk: 'GB',
  gb: 'GB',
  gbr: 'GB',
  eng: 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  'northern ireland': 'GB',
  canada: 'CA',
  can: 'CA',
  ca: 'CA',
  usa: 'US',
  'united states': 'US',
  us: 'US',
};

/**
 * Maps one OCDS 1.1 release to a tender release in the service's terms, or null when the
 * release lacks what every tender needs (an ocid and a valid date).
 */
export function tenderFromRelease(release: Json, publisherName: string | null): TenderReleaseInput | null {
  const ocid = text(release.ocid);
  const date = instant(release.date);
  if (!ocid || !date) return null;
  const tender = object(release.tender);
  const parties = new Map<string, Json>();
  for (const party of array(release.parties)) {
    const id = text(party.id);
    if (id) parties.set(id, party);
  }
  const buyerRef = object(release.buyer ?? tender.procuringEntity);
  const buyerParty =
    parties.get(text(buyerRef.id) ?? '') ?? array(release.parties).find(hasRole('buyer')) ?? {};
  const buyer = organisationFrom(buyerRef, buyerParty);
  const awards = array(release.awards).map((award, index) => awardFrom(award, index, parties));
  const contracts = array(release.contracts);

  return {
    id: ocid,
    releaseDate: date,
    title: firstText(
      tender.title,
      release.title,
      ...array(release.awards).map((award) => award.title),
      ...contracts.map((contract) => contract.title),
      ...array(release.awards).flatMap((award) =>
        array(award.items).flatMap((item) => [item.description, object(item.classification).description]),
      ),
    ),
    description: text(tender.description) ?? text(release.description),
    status: tenderStatus(text(tender.status), awards),
    buyer: buyer ? { ...buyer, type: buyerType(buyer.name) } : null,
    value: money(tender.value),
    deadline: instant(object(tender.tenderPeriod).endDate),
    region: regionOf(tender, buyerParty),
    cpvCodes: cpvCodesOf(release, tender),
    sourceName: sourceNameFor(ocid, publisherName),
    sourceId: text(tender.id) ?? ocid,
    url: noticeUrlOf(tender, release),
    links: linksNamedBy(tender, release),
    frameworkId: frameworkIdOf(release),
    awards,
    framework: object(tender.techniques).hasFrameworkAgreement === true ? frameworkFrom(tender) : null,
  };
}

function tenderStatus(
  ocdsStatus: string | null,
  awards: AwardInput[],
): (typeof TENDER_STATUSES)[number] | null {
  if (ocdsStatus === 'cancelled' || ocdsStatus === 'unsuccessful' || ocdsStatus === 'withdrawn')
    return 'cancelled';
  if (awards.length > 0) return 'awarded';
  switch (ocdsStatus) {
    case 'planning':
    case 'planned':
      return 'planned';
    case 'active':
      return 'open';
    case 'complete':
      return 'closed';
    default:
      return null;
  }
}

function awardFrom(award: Json, index: number, parties: Map<string, Json>): AwardInput {
  const value = money(award.value);
  return {
    id: text(award.id) ?? String(index + 1),
    amount: value?.amount ?? null,
    currency: value?.currency ?? null,
    date: instant(award.date),
    suppliers: array(award.suppliers)
      .map((ref) => organisationFrom(ref, parties.get(text(ref.id) ?? '') ?? {}))
      .filter((supplier): supplier is OrganisationInput => supplier !== null),
  };
}

function organisationFrom(ref: Json, party: Json): OrganisationInput | null {
  const name = text(ref.name) ?? text(party.name) ?? text(object(party.identifier).legalName);
  if (!name) return null;
  const address = object(party.address);
  const identifiers = [object(party.identifier), ...array(party.additionalIdentifiers)]
    .map((identifier) => ({ scheme: text(identifier.scheme), id: text(identifier.id) }))
    .filter(
      (identifier): identifier is { scheme: string; id: string } => !!identifier.scheme && !!identifier.id,
    );
  return {
    name,
    region: addressRegion(address),
    locality: text(address.locality),
    postalCode: text(address.postalCode),
    countryCode: countryCode(text(address.countryName)),
    identifiers,
    website: text(object(party.details).url) ?? text(object(party.contactPoint).url),
  };
}

function frameworkFrom(tender: Json): TenderReleaseInput['framework'] {
  const period = object(tender.contractPeriod);
  return {
    type:
      object(tender.techniques).hasDynamicPurchasingSystem === true
        ? 'dynamic_purchasing_system'
        : 'framework',
    startDate: instant(period.startDate)?.slice(0, 10) ?? null,
    endDate: instant(period.endDate)?.slice(0, 10) ?? null,
    lots: array(tender.lots).map((lot, index) => {
      const id = text(lot.id) ?? String(index + 1);
      return { id, title: text(lot.title) ?? `Lot ${id}` };
    }),
  };
}

/** The framework a call-off belongs to, from a `relatedProcesses` entry naming it by ocid. */
function frameworkIdOf(release: Json): string | null {
  for (const related of array(release.relatedProcesses)) {
    const relationship = Array.isArray(related.relationship) ? related.relationship : [];
    const scheme = text(related.scheme)?.toLowerCase() ?? 'ocid';
    const identifier = text(related.identifier);
    if (relationship.includes('framework') && scheme === 'ocid' && identifier) return identifier;
  }
  return null;
}

/**
 * Where the work is, from the first place the release gives, most precise first: the delivery
 * addresses' regions (names or NUTS codes), delivery locations (NUTS gazetteer, or a description
 * that is a region's name), the delivery postcodes, then the buyer's address (region, postcode,
 * or a country that is one of our regions, like Scotland). The writer falls back, at the end of
 * an import, to the buyer's region as any release of the file gave it.
 */
function regionOf(tender: Json, buyerParty: Json): string | null {
  const items = array(tender.items);
  const deliveryAddresses = [
    ...array(tender.deliveryAddresses),
    ...items.flatMap((item) => [...array(item.deliveryAddresses), object(item.deliveryAddress)]),
  ];
  const locations = [
    ...array(tender.deliveryLocations),
    ...items.flatMap((item) => [...array(item.deliveryLocations), object(item.deliveryLocation)]),
  ];
  const candidates = [
    ...deliveryAddresses.map((address) => regionName(text(address.region))),
    ...locations.flatMap((location) => [
      ...gazetteerNuts(object(location.gazetteer)).map(regionName),
      knownRegionName(text(location.description)),
    ]),
    ...deliveryAddresses.map((address) => regionOfPostalCode(text(address.postalCode))),
    ...deliveryAddresses.map((address) => knownRegionName(text(address.countryName))),
    addressRegion(object(buyerParty.address)),
  ];
  return candidates.find((region): region is string => region !== null) ?? null;
}

/** An address's region: as written, else from its postcode, else a country that is a region. */
function addressRegion(address: Json): string | null {
  return (
    regionName(text(address.region)) ??
    regionOfPostalCode(text(address.postalCode)) ??
    knownRegionName(text(address.countryName))
  );
}

function gazetteerNuts(gazetteer: Json): string[] {
  if (!/nuts/i.test(text(gazetteer.scheme) ?? '')) return [];
  const identifiers = Array.isArray(gazetteer.identifiers) ? gazetteer.identifiers : [];
  return identifiers.map(text).filter((identifier): identifier is string => identifier !== null);
}

/**
 * A NUTS code (UKD35, UKM) becomes its UK region's name, a UK region's name gets one spelling, and
 * any other region is kept as written. Placeholders ("Unknown") and whole countries are no region.
 */
export function regionName(region: string | null): string | null {
  const trimmed = region?.trim();
  if (!trimmed || NOT_A_REGION.has(trimmed.toLowerCase())) return null;
  const nuts = /^UK([C-N])[0-9A-Z]*$/i.exec(trimmed);
  if (nuts) return UK_NUTS1_REGIONS[`UK${nuts[1]?.toUpperCase()}`] ?? trimmed;
  return UK_REGION_SPELLINGS.get(trimmed.toLowerCase()) ?? trimmed;
}

/** Free text that is exactly a UK region's name (a delivery location, a country like "Wales"). */
function knownRegionName(value: string | null): string | null {
  return value ? (UK_REGION_SPELLINGS.get(value.trim().toLowerCase()) ?? null) : null;
}

/** The region of a full UK postcode (SW1A 2AA) or Canadian postal code (K1A 0B1); else null. */
export function regionOfPostalCode(postalCode: string | null): string | null {
  const code = postalCode?.trim().toUpperCase() ?? '';
  const uk = /^([A-Z]{1,2})[0-9][0-9A-Z]? ?[0-9][A-Z]{2}$/.exec(code);
  if (uk) return UK_POSTCODE_AREAS[uk[1] as string] ?? null;
  const canadian = /^([A-Z])[0-9][A-Z] ?[0-9][A-Z][0-9]$/.exec(code);
  if (canadian) return CANADIAN_POSTAL_LETTERS[canadian[1] as string] ?? null;
  return null;
}

function countryCode(countryName: string | null): string | null {
  if (!countryName) return null;
  const key = countryName.trim().toLowerCase();
  return COUNTRY_CODES[key] ?? (/^[A-Za-z]{2}$/.test(key) ? key.toUpperCase() : null);
}

/**
 * CPV codes only (Canada's GSIN codes are another scheme); the check digit (`-7`) is dropped.
 * Codes come from the tender and its items, and the items of awards and contracts; a code is
 * described by whichever classification describes it (the writer then shares descriptions
 * across releases and files).
 */
function cpvCodesOf(release: Json, tender: Json): { code: string; description: string | null }[] {
  const items = [
    ...array(tender.items),
    ...array(release.awards).flatMap((award) => array(award.items)),
    ...array(release.contracts).flatMap((contract) => array(contract.items)),
  ];
  const classifications = [
    object(tender.classification),
    ...array(tender.additionalClassifications),
    ...items.flatMap((item) => [object(item.classification), ...array(item.additionalClassifications)]),
  ];
  const codes = new Map<string, string | null>();
  for (const classification of classifications) {
    if (text(classification.scheme)?.toUpperCase() !== 'CPV') continue;
    const code = /^(\d{8})/.exec(text(classification.id) ?? '')?.[1];
    if (code && !codes.get(code)) codes.set(code, text(classification.description));
  }
  return [...codes].map(([code, description]) => ({ code, description }));
}

/** Every document and link address of a release: any of them, pasted, finds the tender. */
function linksNamedBy(tender: Json, release: Json): string[] {
  const documents = [
    ...array(tender.documents),
    ...array(release.awards).flatMap((award) => array(award.documents)),
    ...array(release.contracts).flatMap((contract) => array(contract.documents)),
  ];
  return [
    ...documents.map((document) => text(document.url)),
    ...array(release.links).map((link) => text(link.href)),
  ].filter((url): url is string => url !== null);
}

const NOTICE_DOCUMENT_TYPES = ['tenderNotice', 'contractNotice', 'awardNotice', 'biddingDocuments'];

function noticeUrlOf(tender: Json, release: Json): string | null {
  const documents = [
    ...array(tender.documents),
    ...array(release.awards).flatMap((award) => array(award.documents)),
  ];
  for (const type of NOTICE_DOCUMENT_TYPES) {
    const document = documents.find((candidate) => candidate.documentType === type && text(candidate.url));
    if (document) return text(document.url);
  }
  const anyDocument = documents.find((candidate) => text(candidate.url));
  if (anyDocument) return text(anyDocument.url);
  const link = array(release.links).find((candidate) => text(candidate.href));
  return link ? text(link.href) : null;
}

function sourceNameFor(ocid: string, publisherName: string | null): string {
  const known = SOURCES_BY_OCID_PREFIX.find(([prefix]) => ocid.startsWith(prefix));
  return known?.[1] ?? publisherName ?? 'OCDS';
}

/** A buyer's kind guessed from its name; sources do not state it. */
export function buyerType(name: string): (typeof BUYER_TYPES)[number] {
  if (/\b(nhs|health|hospital|clinical|ambulance|medical|care trust)\b/i.test(name)) return 'health';
  if (/\b(university|college|school|academy|education|learning)\b/i.test(name)) return 'education';
  if (/\b(council|borough|county|city of|district|municipal|parish|police|fire)\b/i.test(name))
    return 'local';
  if (
    /\b(department|ministry|agency|government|cabinet office|crown|canada|national|royal|hm |office for)\b/i.test(
      name,
    )
  )
    return 'central';
  return 'other';
}

function money(value: unknown): { amount: number; currency: string } | null {
  const candidate = object(value);
  const amount =
    typeof candidate.amount === 'number' ? candidate.amount : Number.parseFloat(String(candidate.amount));
  const currency = text(candidate.currency);
  if (!Number.isFinite(amount) || !currency) return null;
  return { amount, currency: currency.toUpperCase() };
}

function instant(value: unknown): string | null {
  const raw = text(value);
  if (!raw) return null;
  const parsed = Date.parse(raw);
  return Number.isNaN(parsed) ? null : toStoredInstant(new Date(parsed));
}

function hasRole(role: string) {
  return (party: Json) => Array.isArray(party.roles) && party.roles.includes(role);
}

function firstText(...values: unknown[]): string | null {
  for (const value of values) {
    const candidate = text(value);
    if (candidate) return candidate;
  }
  return null;
}

function text(value: unknown): string | null {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : null;
}

function object(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function array<T = Json>(value: unknown): T[] {
  return Array.isArray(value)
    ? (value.filter((item) => typeof item === 'object' && item !== null) as T[])
    : [];
}
