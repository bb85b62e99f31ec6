import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../../../support/fixture.ts';
import { Harness, type Instance } from '../../delivery/harness.ts';

/**
 * Directory commands (saved searches, buyers, suppliers, frameworks) read with the person's own key
 * where they linked one: Max linked Dave's key (Beta's organisation); Ada uses the workspace's
 * (Carol's, Acme's).
 */
const harness = new Harness('2027-05-03T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-directories-')));
let a: Instance;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
  await harness.linkPersonalKey(a.store, 'U0MEMBER', KEYS.daveBeta);
});
afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

describe('directories and a person’s own key', () => {
  it('lists the saved searches of the person’s own key’s organisation, and the workspace’s for others', async () => {
    const own = JSON.stringify((await harness.command('U0MEMBER', 'C0BIDS', 'saved')).blocks);
    expect(own).toContain('Beta: software');
    expect(own).not.toContain('Acme search');
    const workspace = JSON.stringify((await harness.command('U0ADMIN', 'C0BIDS', 'saved')).blocks);
    expect(workspace).toContain('Acme search');
    expect(workspace).not.toContain('Beta: software');
  });
});
