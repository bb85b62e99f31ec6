/**
 * Notice links of the sources the importer knows, turned into what the service can look up: a
 * tender id when the link holds the ocid (or what the ocid is made of), else the notice's URL in
 * the exact form the publishers write it (and the service stores it).
 */

/**
 * The manifest's unfurl domains (Slack allows five), chosen by what ../shared/data/ocds holds:
 * Buyandsell.gc.ca (24,686 Canadian tenders, whose ocids are its reference numbers), Contracts
 * Finder (~190), Public Contracts Scotland (90), Sell2Wales (90) and Find a Tender (the UK's
 * notices above the thresholds, linked from Contracts Finder notices). Slack also sends links on
 * their subdomains (`www.`). Crown Commercial Service and CanadaBuys links are still recognised in
 * direct messages and by the message shortcut.
 */
export const UNFURL_DOMAINS = [
  'contractsfinder.service.gov.uk',
  'find-tender.service.gov.uk',
  'publiccontractsscotland.gov.uk',
  'sell2wales.gov.wales',
  'buyandsell.gc.ca',
] as const;

/** What a link names: the tender's id, or the notice URL the service can be asked about. */
export type NoticeRef = { source: string; tenderId: string } | { source: string; noticeUrl: string };

/** An ocid as people paste it: `ocds-` then a prefix and the rest (Canada's hold `$$` and `/`). */
const OCID = /^ocds-[a-z0-9]+-[A-Za-z0-9$][A-Za-z0-9$\-_/.]*$/i;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The longest URL or id looked at: anything longer is not a notice link. */
const MAX_LENGTH = 2000;

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^www\./, '');
}

function isOn(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** A query parameter by name, whatever its case (`ID=`, `id=`). */
function param(url: URL, name: string): string | null {
  for (const [key, value] of url.searchParams) if (key.toLowerCase() === name) return value.trim();
  return null;
}

function path(url: URL): string[] {
  return url.pathname
    .split('/')
    .filter(Boolean)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
}

/**
 * The tender a link names, or null for a link that is not a notice of a known source.
 * `serviceOrigins` are the Procurement Intelligence Service's own origins (`/v1/tenders/<id>`).
 */
export function recogniseNoticeLink(raw: string, serviceOrigins: readonly string[] = []): NoticeRef | null {
  if (raw.length > MAX_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = hostOf(url);
  const parts = path(url);
  const lower = parts.map((part) => part.toLowerCase());

  const own = serviceOrigins.some((origin) => sameOrigin(origin, url));
  if (own) {
    const at = lower.lastIndexOf('tenders');
    const id = at >= 0 && lower[at - 1] === 'v1' && parts.length === at + 2 ? parts[at + 1] : undefined;
    return id ? { source: 'Tenderbot', tenderId: id } : null;
  }

  if (isOn(host, 'contractsfinder.service.gov.uk')) {
    // `/Notice/<guid>`: the guid is the release's, not the ocid's, so the service is asked by URL.
    const guid = lower[0] === 'notice' && parts.length === 2 ? parts[1] : undefined;
    if (guid && GUID.test(guid))
      return {
        source: 'Contracts Finder',
        noticeUrl: `https://www.contractsfinder.service.gov.uk/Notice/${guid.toLowerCase()}`,
      };
    return null;
  }
  if (isOn(host, 'find-tender.service.gov.uk')) {
    const id = lower[0] === 'notice' && parts.length === 2 ? parts[1] : undefined;
    if (id && /^\d{6}-\d{4}$/.test(id))
      return { source: 'Find a Tender', noticeUrl: `https://www.find-tender.service.gov.uk/Notice/${id}` };
    return null;
  }
  for (const [domain, source] of [
    ['publiccontractsscotland.gov.uk', 'Public Contracts Scotland'],
    ['sell2wales.gov.wales', 'Sell2Wales'],
  ] as const) {
    if (!isOn(host, domain)) continue;
    // The API's canonical link holds the ocid: `api.…/v1/Notice?id=ocds-…` (Sell2Wales puts `?lang=cy/Notice?id=` in it).
    const ocid = /[?&/]id=(ocds-[A-Za-z0-9-]+)/i.exec(`${url.pathname}${url.search}`)?.[1];
    if (ocid && OCID.test(ocid)) return { source, tenderId: ocid };
    const noticeId = param(url, 'id');
    if (lower.join('/') === 'search/show/search_view.aspx' && noticeId && /^[A-Z]{3}\d{4,}$/i.test(noticeId))
      return {
        source,
        noticeUrl: `https://www.${domain}/search/show/search_view.aspx?ID=${noticeId.toUpperCase()}`,
      };
    return null;
  }
  if (isOn(host, 'buyandsell.gc.ca') || isOn(host, 'canadabuys.canada.ca')) {
    const source = isOn(host, 'buyandsell.gc.ca') ? 'Buyandsell.gc.ca' : 'CanadaBuys';
    // `/procurement-data/tender-notice/PW-14-00627094` (and CanadaBuys' `/en/tender-opportunities/tender-notice/pw-…`):
    // the reference number is what the ocid is made of.
    const at = lower.indexOf('tender-notice');
    const reference = at >= 0 && parts.length === at + 2 ? parts[at + 1] : undefined;
    if (reference && /^[A-Za-z0-9][A-Za-z0-9$-]{3,80}$/.test(reference))
      return { source, tenderId: `ocds-canada-bas-${reference.toUpperCase()}` };
    // An attachment (`/cds/public/…`) is one of the notice's documents: asked by URL as written.
    if (lower[0] === 'cds' && source === 'Buyandsell.gc.ca')
      return { source, noticeUrl: `https://buyandsell.gc.ca${url.pathname}` };
    return null;
  }
  if (isOn(host, 'crowncommercial.gov.uk')) {
    const number = lower[0] === 'agreements' && parts.length === 2 ? parts[1] : undefined;
    if (number && /^rm\d+(\.\d+)*$/i.test(number))
      return { source: 'Crown Commercial Service', tenderId: `ocds-ccs-${number.toUpperCase()}` };
    return null;
  }
  return null;
}

function sameOrigin(origin: string, url: URL): boolean {
  try {
    const base = new URL(origin);
    return base.host.toLowerCase() === url.host.toLowerCase() && base.protocol === url.protocol;
  } catch {
    return false;
  }
}

/** The longest word of a message looked at for an id or a reference (either is at most 300 characters). */
export const LONGEST_TOKEN = 400;

/** A tender id as typed in a message (`ocds-b5fd17-…`), or null. */
export function asTenderId(token: string): string | null {
  // Long enough to be no id even with quotes around it: not trimmed (the trim at the end of
  // thousands of commas or brackets takes time that grows with the square of their number).
  if (token.length > LONGEST_TOKEN) return null;
  const trimmed = token.replace(/^[("'“‘`*_]+|[)"'”’`*_.,;:!?]+$/g, '');
  return trimmed.length <= 300 && OCID.test(trimmed) ? trimmed : null;
}

/**
 * The links in a Slack message's text, in order: `<https://…|label>`, `<https://…>` and bare
 * URLs; Slack's `&amp;` in a link is turned back into `&`.
 */
export function linksInText(text: string): string[] {
  const links: string[] = [];
  const bracketed = /<(https?:\/\/[^|>\s]+)(?:\|[^>]*)?>/gi;
  for (const match of text.matchAll(bracketed)) links.push(unescapeLink(match[1] ?? ''));
  const rest = text.replace(bracketed, ' ');
  for (const match of rest.matchAll(/https?:\/\/[^\s<>|"]+/gi)) {
    const link = match[0] ?? '';
    // Past the longest link kept, not trimmed either (see asTenderId).
    if (link.length <= MAX_LENGTH + LONGEST_TOKEN) links.push(unescapeLink(link.replace(/[),.;:!?]+$/, '')));
  }
  return links.filter((link) => link.length > 0 && link.length <= MAX_LENGTH);
}

function unescapeLink(link: string): string {
  return link.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

/**
 * What a message names, in order and without repeats: its notice links of known sources, then
 * the tender ids typed in it (links are taken out first, so an id inside a link is not counted twice).
 */
export function noticeRefsInText(text: string, serviceOrigins: readonly string[] = []): NoticeRef[] {
  const refs: NoticeRef[] = [];
  const seen = new Set<string>();
  const add = (ref: NoticeRef) => {
    const key = 'tenderId' in ref ? `id:${ref.tenderId}` : `url:${ref.noticeUrl}`;
    if (seen.has(key)) return;
    seen.add(key);
    refs.push(ref);
  };
  for (const link of linksInText(text)) {
    const ref = recogniseNoticeLink(link, serviceOrigins);
    if (ref) add(ref);
  }
  const withoutLinks = text.replace(/<[^>]*>/g, ' ').replace(/https?:\/\/\S+/gi, ' ');
  for (const token of withoutLinks.split(/\s+/)) {
    const id = asTenderId(token);
    if (id) add({ source: 'typed', tenderId: id });
  }
  return refs.slice(0, 20);
}
