import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenderList } from '../../../src/contract/schemas.ts';
import { ocdsFilesIn, type RunningSandbox, startSandbox } from '../../../src/service/sandbox.ts';
import { OCDS_DIR } from '../../support/ocds-data.ts';
import { type ApiAnswer, callApiWithinRate } from '../../support/sandbox.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-money-truth-'));
let sandbox: RunningSandbox;
let key: string;

beforeAll(async () => {
  sandbox = await startSandbox({
    db: join(dir, 'real.db'),
    port: 0,
    imports: ocdsFilesIn(OCDS_DIR),
    logLevel: 'silent',
  });
  key = sandbox.demoKeys[0]?.key as string;
}, 300_000);
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

function get(path: string): Promise<ApiAnswer> {
  return callApiWithinRate(sandbox.baseUrl, 'GET', path, { key });
}

async function every(path: string) {
  const items: { id: string; value: { amount: number; currency: string } | null; source: { id: string } }[] =
    [];
  let last: ReturnType<typeof TenderList.parse> | undefined;
  for (let offset = 0; ; offset += 100) {
    const answer = await get(`${path}&limit=100&offset=${offset}`);
    expect(answer.status, answer.text).toBe(200);
    last = TenderList.parse(answer.body);
    items.push(...last.data);
    if (!last.pagination.hasMore) break;
  }
  return { items, last: last as ReturnType<typeof TenderList.parse> };
}

describe('money and references on the real OCDS files', () => {
  it('lists "snow removal" over £1,000,000 only when the amount, converted at the stated rates, is over it', async () => {
    const all = await every('/v1/tenders?q=snow%20removal');
    const currencies = new Set(all.items.map((tender) => tender.value?.currency).filter(Boolean));
    expect(currencies.has('CAD')).toBe(true);
    const bounded = await every('/v1/tenders?q=snow%20removal&valueMin=1000000');
    const rule = bounded.last.valueRule;
    expect(rule?.currency).toBe('GBP');
    const rates = rule?.rates ?? {};
    const inPounds = (value: { amount: number; currency: string }) =>
      value.currency === 'GBP'
        ? value.amount
        : rates[value.currency] === undefined
          ? null
          : value.amount * ((rates.GBP as number) / (rates[value.currency] as number));
    const expected = all.items.filter((tender) => {
      const pounds = tender.value ? inPounds(tender.value) : null;
      return pounds !== null && pounds >= 1_000_000;
    });
    expect(bounded.last.pagination.total).toBe(expected.length);
    expect(bounded.items.map((tender) => tender.id).sort()).toEqual(
      expected.map((tender) => tender.id).sort(),
    );
    // Some Canadian contract is over a million dollars but under a million pounds: it is left out.
    const dollarsOnly = all.items.filter(
      (tender) =>
        tender.value?.currency === 'CAD' &&
        tender.value.amount >= 1_000_000 &&
        (inPounds(tender.value) ?? 0) < 1_000_000,
    );
    expect(dollarsOnly.length).toBeGreaterThan(0);
    for (const tender of dollarsOnly) expect(bounded.items.map((item) => item.id)).not.toContain(tender.id);
    // Over CA$1,000,000 in dollars they are listed.
    const inDollars = await every('/v1/tenders?q=snow%20removal&valueMin=1000000&currency=CAD');
    for (const tender of dollarsOnly) expect(inDollars.items.map((item) => item.id)).toContain(tender.id);
  });

  it('finds a Buyandsell tender by its printed number and by its source reference', async () => {
    const page = TenderList.parse((await get('/v1/tenders?q=snow%20removal&limit=5')).body);
    const found = page.data.find((item) => item.id.startsWith('ocds-canada-bas-'));
    expect(found).toBeDefined();
    if (!found) return;
    const tender = found;
    const printed = tender.id.slice('ocds-canada-bas-'.length);
    const byNumber = await get(`/v1/tenders/${encodeURIComponent(printed)}`);
    expect(byNumber.status).toBe(200);
    expect(byNumber.body.data.id).toBe(tender.id);
    const byReference = TenderList.parse(
      (await get(`/v1/tenders?reference=${encodeURIComponent(tender.source.id)}&limit=100`)).body,
    );
    expect(byReference.data.map((item) => item.id)).toContain(tender.id);
    for (const item of byReference.data)
      expect(item.source.id.toLowerCase()).toBe(tender.source.id.toLowerCase());
  });
});
