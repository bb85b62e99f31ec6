import { describe, expect, it } from 'vitest';
import type { FeatureContext } from '../../../src/app/shared/feature-context.ts';
import { regionsFor } from '../../../src/app/shared/regions.ts';

/**
 * A workspace's service as regionsFor reads it: buyers then tenders, each page counted; `failing`
 * makes every reading fail as a service that is down does. Only what regionsFor uses is given.
 */
function serviceReadBy() {
  const state = { now: Date.parse('2026-11-28T09:00:00Z'), readings: 0, failing: false, regions: ['Wales'] };
  async function* pages(kind: 'buyer' | 'tender') {
    if (kind === 'buyer') state.readings += 1;
    // A pause, as over the network: readings asked for meanwhile could start their own.
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (state.failing) throw new Error('the service did not answer');
    for (const region of state.regions) yield { region };
  }
  const client = { buyers: { all: () => pages('buyer') }, tenders: { all: () => pages('tender') } };
  const context = {
    clock: () => new Date(state.now),
    clients: { forTeam: async () => ({ client }) },
  } as unknown as FeatureContext;
  return { state, context };
}

describe("a workspace's regions", () => {
  it('are read once for searches asked at the same moment, and kept ten minutes', async () => {
    const { state, context } = serviceReadBy();
    const answers = await Promise.all([1, 2, 3].map(() => regionsFor(context, 'T1')));
    expect(answers).toEqual([['Wales'], ['Wales'], ['Wales']]);
    expect(state.readings).toBe(1);
    state.regions = ['Wales', 'South West'];
    state.now += 9 * 60_000;
    expect(await regionsFor(context, 'T1')).toEqual(['Wales']);
    state.now += 2 * 60_000;
    expect(await regionsFor(context, 'T1')).toEqual(['South West', 'Wales']);
    expect(state.readings).toBe(2);
  });

  it('that could not be read are not read again for a search’s words for 30 seconds: the failure, or the regions kept before', async () => {
    const { state, context } = serviceReadBy();
    const typed = () => regionsFor(context, 'T1', true);
    state.failing = true;
    await expect(typed()).rejects.toThrow('did not answer');
    await expect(typed()).rejects.toThrow('did not answer');
    expect(state.readings).toBe(1);
    state.failing = false;
    state.now += 29_000;
    await expect(typed()).rejects.toThrow('did not answer');
    state.now += 2_000;
    expect(await typed()).toEqual(['Wales']);
    expect(state.readings).toBe(2);
    // Ten minutes on, the service down again: the regions read before are given, and it is asked
    // again only once the failure is 30 seconds old.
    state.now += 11 * 60_000;
    state.failing = true;
    expect(await typed()).toEqual(['Wales']);
    expect(await typed()).toEqual(['Wales']);
    expect(await regionsFor(context, 'T1')).toEqual(['Wales']);
    expect(state.readings).toBe(3);
    state.failing = false;
    state.regions = ['Scotland'];
    state.now += 31_000;
    expect(await typed()).toEqual(['Scotland']);
    expect(state.readings).toBe(4);
  });

  it('that could not be read are asked for again by the search form at once', async () => {
    const { state, context } = serviceReadBy();
    state.failing = true;
    await expect(regionsFor(context, 'T1')).rejects.toThrow('did not answer');
    state.failing = false;
    expect(await regionsFor(context, 'T1')).toEqual(['Wales']);
    expect(state.readings).toBe(2);
  });

  it('of one workspace are not another’s', async () => {
    const { state, context } = serviceReadBy();
    await regionsFor(context, 'T1');
    state.failing = true;
    await expect(regionsFor(context, 'T2')).rejects.toThrow('did not answer');
    expect(await regionsFor(context, 'T1')).toEqual(['Wales']);
    expect(state.readings).toBe(2);
  });
});
