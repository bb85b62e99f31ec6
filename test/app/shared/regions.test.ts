import { describe, expect, it } from 'vitest';
import type { FeatureContext } from '../../../src/app/shared/feature-context.ts';
import { forgetRegions, parseWithRegions, regionsFor } from '../../../src/app/shared/regions.ts';

/**
 * A workspace's service as regionsFor reads it: buyers then tenders, each reading counted; `failing`
 * makes every reading fail as a service that is down does. Only what regionsFor uses is given.
 */
function serviceReadBy() {
  const state = {
    now: Date.parse('2026-11-28T09:00:00Z'),
    readings: 0,
    failing: false,
    regions: ['Wales', 'South West'],
    /** Regions the data names beyond those read (older tenders, later buyers): found by a search. */
    rare: [] as string[],
    searchFailing: false,
  };
  const named = async ({ region }: { region?: string }) => {
    if (state.searchFailing) throw new Error('the service did not answer');
    const found = [...state.regions, ...state.rare].find(
      (each) => each.toLowerCase() === region?.toLowerCase(),
    );
    return { data: found ? [{ region: found }] : [] };
  };
  async function* pages(kind: 'buyer' | 'tender') {
    if (kind === 'buyer') state.readings += 1;
    // A pause, as over the network: callers meanwhile could start readings of their own.
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (state.failing) throw new Error('the service did not answer');
    for (const region of state.regions) yield { region };
  }
  const client = {
    buyers: { all: () => pages('buyer'), list: named },
    tenders: { all: () => pages('tender'), search: named },
  };
  const context = {
    clock: () => new Date(state.now),
    clients: { forTeam: async () => ({ client }) },
  } as unknown as FeatureContext;
  const typed = () => regionsFor(context, 'T1', 'typed');
  const form = () => regionsFor(context, 'T1');
  return { state, context, typed, form };
}

describe("a workspace's regions", () => {
  it('are read once for callers at the same moment, and kept ten minutes', async () => {
    const { state, typed, form } = serviceReadBy();
    state.regions = ['Wales'];
    const answers = await Promise.all([typed(), form(), typed()]);
    expect(answers).toEqual([['Wales'], ['Wales'], ['Wales']]);
    expect(state.readings).toBe(1);
    state.regions = ['Wales', 'South West'];
    state.now += 9 * 60_000;
    expect(await form()).toEqual(['Wales']);
    state.now += 2 * 60_000;
    expect(await form()).toEqual(['South West', 'Wales']);
    expect(state.readings).toBe(2);
  });

  it('that could not be read are not asked for again for a search’s words for 30 seconds', async () => {
    const { state, typed } = serviceReadBy();
    state.failing = true;
    await expect(typed()).rejects.toThrow('did not answer');
    await expect(typed()).rejects.toThrow('did not answer');
    expect(state.readings).toBe(1);
    state.failing = false;
    state.now += 29_000;
    await expect(typed()).rejects.toThrow('did not answer');
    state.now += 2_000;
    expect(await typed()).toEqual(['South West', 'Wales']);
    expect(state.readings).toBe(2);
  });

  it('read within the hour stand in for a failed reading of words, for every caller sharing it; the form is told', async () => {
    const { state, typed, form } = serviceReadBy();
    state.regions = ['Wales'];
    await typed();
    state.now += 11 * 60_000;
    state.failing = true;
    const [first, second, byForm] = await Promise.allSettled([typed(), typed(), form()]);
    expect(first).toEqual({ status: 'fulfilled', value: ['Wales'] });
    expect(second).toEqual({ status: 'fulfilled', value: ['Wales'] });
    expect(byForm.status).toBe('rejected');
    expect(state.readings).toBe(2);
    // Within 30 s words are not read again, the form asks again (and is told again).
    expect(await typed()).toEqual(['Wales']);
    await expect(form()).rejects.toThrow('did not answer');
    expect(state.readings).toBe(3);
    // Up to the hour from the last reading, they stand in; past it, the failure is the caller's.
    state.now += 48 * 60_000;
    expect(await typed()).toEqual(['Wales']);
    expect(state.readings).toBe(4);
    state.now += 60_000;
    await expect(typed()).rejects.toThrow('did not answer');
    expect(state.readings).toBe(5);
    state.failing = false;
    state.regions = ['Scotland'];
    state.now += 31_000;
    expect(await typed()).toEqual(['Scotland']);
  });

  it('are read again when the clock is set back, rather than kept until it catches up', async () => {
    const { state, typed, form } = serviceReadBy();
    state.failing = true;
    await expect(typed()).rejects.toThrow('did not answer');
    state.failing = false;
    state.now -= 60 * 60_000;
    expect(await typed()).toEqual(['South West', 'Wales']);
    state.regions = ['Scotland'];
    state.now -= 60_000;
    expect(await form()).toEqual(['Scotland']);
    expect(state.readings).toBe(3);
  });

  it('of one workspace are not another’s', async () => {
    const { state, context } = serviceReadBy();
    await regionsFor(context, 'T1');
    state.failing = true;
    await expect(regionsFor(context, 'T2', 'typed')).rejects.toThrow('did not answer');
    expect(await regionsFor(context, 'T1', 'typed')).toEqual(['South West', 'Wales']);
    expect(state.readings).toBe(2);
  });

  it('are forgotten with the key: read again, and a reading under way then is not kept', async () => {
    const { state, context, form } = serviceReadBy();
    await form();
    forgetRegions(context, 'T1');
    state.regions = ['Scotland'];
    const reading = form();
    forgetRegions(context, 'T1');
    expect(await reading).toEqual(['Scotland']);
    state.regions = ['Wales'];
    expect(await form()).toEqual(['Wales']);
    expect(state.readings).toBe(3);
  });
});

describe('a search that lasts, with a region the regions would decide', () => {
  it('is refused with the quoted form while the regions cannot be read, and read as the region once they can', async () => {
    const { state, context } = serviceReadBy();
    const lasting = (text: string) =>
      parseWithRegions(context, 'T1', text, { wanted: 'fresh', refuseUnread: true });
    state.failing = true;
    const refused = await lasting('cleaning region:south west');
    expect(refused).toEqual({
      ok: false,
      problem:
        'Tenderbot could not read the data’s regions just now, so it cannot tell whether `region:south west` is one region. Put a region of more than one word in quotes, as in `region:"south west"`, or try again in a minute.',
    });
    // Hyphenated, the same (a filter after it is not part of it); quoted, or followed by nothing,
    // nothing depends on the regions.
    expect(await lasting('region:south-west status:open')).toMatchObject({
      ok: false,
      problem: expect.stringContaining(
        'whether `region:south-west` is one region. Put a region of more than one word in quotes, as in `region:"south west"`',
      ),
    });
    expect(await lasting('cleaning region:"south west"')).toMatchObject({
      ok: true,
      filters: { region: 'south west' },
    });
    expect(await lasting('cleaning region:wales')).toMatchObject({ ok: true, filters: { region: 'wales' } });
    // A search typed now (not lasting) reads the words as typed instead.
    expect(await parseWithRegions(context, 'T1', 'cleaning region:south west')).toMatchObject({
      ok: true,
      filters: { region: 'south', q: 'cleaning west' },
    });
    state.failing = false;
    expect(await lasting('cleaning region:south west')).toMatchObject({
      ok: true,
      filters: { region: 'South West', q: 'cleaning' },
    });
  });

  it('a search that lasts takes a region the data names beyond those read, in its spelling, and refuses one it does not', async () => {
    const { state, context } = serviceReadBy();
    state.rare = ['Isle of Man'];
    const lasting = (text: string) =>
      parseWithRegions(context, 'T1', text, { wanted: 'fresh', refuseUnread: true });
    expect(await lasting('region:"isle of man"')).toMatchObject({
      ok: true,
      filters: { region: 'Isle of Man' },
    });
    expect(await lasting('region:wales')).toMatchObject({ ok: true, filters: { region: 'Wales' } });
    expect(await lasting('region:Atlantis')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('Tenderbot knows no region called “Atlantis”'),
    });
    // A typo close to one region, and to one only, is named (and offered); one as close to two or
    // three names them all and offers none; one as close to more lists the data's regions.
    expect(await lasting('region:Walse')).toMatchObject({
      ok: false,
      problem: 'Tenderbot knows no region called “Walse”. Did you mean `region:"Wales"`?',
    });
    expect(await lasting('region:"south wst"')).toMatchObject({
      ok: false,
      problem: 'Tenderbot knows no region called “south wst”. Did you mean `region:"South West"`?',
    });
    expect(await lasting('region:Atlantis')).toMatchObject({
      problem: expect.stringContaining('Regions in the data include'),
    });
    expect(await lasting('region:Walse')).toMatchObject({ regionMeant: 'Wales' });
    state.regions = ['Wales', 'Wells'];
    forgetRegions(context, 'T1');
    const twoAsNear = await lasting('region:Walls');
    expect(twoAsNear).toMatchObject({
      ok: false,
      problem: 'Tenderbot knows no region called “Walls”. Did you mean `region:"Wales"` or `region:"Wells"`?',
    });
    expect(twoAsNear).not.toHaveProperty('regionMeant');
    state.regions = ['North East', 'North West', 'South West'];
    forgetRegions(context, 'T1');
    expect(await lasting('region:"North Est"')).toMatchObject({
      problem:
        'Tenderbot knows no region called “North Est”. Did you mean `region:"North East"` or `region:"North West"`?',
    });
    state.regions = ['Walsa', 'Walsb', 'Walsc', 'Walsd'];
    forgetRegions(context, 'T1');
    expect(await lasting('region:Walse')).toMatchObject({
      problem: expect.stringContaining('Regions in the data include'),
    });
    state.regions = ['Wales', 'South West'];
    forgetRegions(context, 'T1');
    // The service cannot be asked: followed as typed rather than refused.
    state.searchFailing = true;
    expect(await lasting('region:Atlantis')).toMatchObject({ ok: true, filters: { region: 'Atlantis' } });
    // A search typed now is never refused for its region (it says so when it finds nothing).
    expect(await parseWithRegions(context, 'T1', 'region:Atlantis')).toMatchObject({ ok: true });
  });
});
