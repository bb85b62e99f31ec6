import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_RATES_DATE } from '../../../../src/service/money/reference-rates.ts';
import { eventually } from '../../../support/bot.ts';
import { Harness, type Instance } from '../../delivery/harness.ts';
import { entryOf, linesOf, saveBetaSearchesWithBounds } from './saved-searches-with-bounds.ts';

// Saved searches as `/tender saved` and the Home tab list them, through the real app, the fake
// Slack and the local service: one with value bounds is said with the rule the service compares
// them by (its rates' date, as a search's heading says it); one without bounds names none.

const RULE = `amounts in other currencies converted at the ECB rates of ${REFERENCE_RATES_DATE}`;

const harness = new Harness('2027-05-03T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-saved-money-')));
let a: Instance;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
  await saveBetaSearchesWithBounds(harness, a);
}, 120_000);

afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

describe('saved searches with value bounds', () => {
  it('are listed by /tender saved with the service’s rule, and one without bounds without it', async () => {
    const list = linesOf(await harness.command('U0MEMBER', 'C0BIDS', 'saved'));
    expect(entryOf(list, 'Beta: big gritting')).toContain(
      `Tenders matching “gritting”, worth £1,000,000 or more; ${RULE}`,
    );
    expect(entryOf(list, 'Beta: small euro works')).toContain(`Tenders up to €50,000; ${RULE}`);
    expect(entryOf(list, 'Beta: software')).toContain('Tenders matching “software”');
    expect(entryOf(list, 'Beta: software')).not.toContain('converted at');
  });

  it('are listed on the Home tab with the service’s rule, and one without bounds without it', async () => {
    await harness.slack.openHome('U0MEMBER');
    const home = await eventually(() => {
      const lines = linesOf(harness.slack.homeOf('U0MEMBER')?.view);
      return lines.some((line) => line.includes('Beta: big gritting')) ? lines : null;
    }, 'Max’s Home tab with its saved searches');
    expect(entryOf(home, 'Beta: big gritting')).toContain(
      `Tenders matching “gritting”, worth £1,000,000 or more; ${RULE}`,
    );
    expect(entryOf(home, 'Beta: small euro works')).toContain(`Tenders up to €50,000; ${RULE}`);
    expect(entryOf(home, 'Beta: software')).toContain('Tenders matching “software”');
    expect(entryOf(home, 'Beta: software')).not.toContain('converted at');
  });
});
