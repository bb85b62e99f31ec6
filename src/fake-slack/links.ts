/** Links in message text, as Slack finds them, stores them and tells apps about them. */

/**
 * The links in a message's text: `<url>` and `<url|label>` as Slack stores them, and bare URLs;
 * as Slack gives them in `link_shared`, with the text's `&amp;` back to `&`.
 */
export function linksIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/<(https?:\/\/[^|>\s]+)(?:\|[^>]*)?>|(https?:\/\/[^\s<>|]+)/g)) {
    const url = (match[1] ?? match[2])?.replace(/&amp;/g, '&');
    if (url && !found.includes(url)) found.push(url);
  }
  return found;
}

/** The links in a text on one of `domains` (or a subdomain), each with the domain it matched. */
export function linksOnDomains(text: string, domains: readonly string[]): { domain: string; url: string }[] {
  const found: { domain: string; url: string }[] = [];
  for (const url of linksIn(text)) {
    let host: string;
    try {
      host = new URL(url).hostname.toLowerCase();
    } catch {
      continue;
    }
    const domain = domains.find((candidate) => {
      const wanted = candidate.toLowerCase();
      return host === wanted || host.endsWith(`.${wanted}`);
    });
    if (domain) found.push({ domain, url });
  }
  return found;
}

/**
 * What a person types, as Slack stores it in a message's text: `&`, `<` and `>` escaped, and each
 * link wrapped as `<https://…>` (so an app reading it sees what Slack would send).
 */
export function typedText(typed: string): string {
  const escaped = typed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped.replace(/(^|[\s(])(https?:\/\/[^\s]+?)(?=[).,!?;:]*(?:\s|$))/g, '$1<$2>');
}
