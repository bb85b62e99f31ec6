import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directoryCommand,
  runSavedSearch,
  savedSearchesCommand,
  showDirectoryEntry,
} from '../../../../src/app/features/directories/directories.ts';
import { DirectoryIds, SavedSearchIds } from '../../../../src/app/shared/ids.ts';
import { SuggestionIds } from '../../../../src/app/shared/views/suggestions.ts';
import { NotFoundError } from '../../../../src/client/errors.ts';
import { KEYS, LARGE_FRAMEWORK_ID } from '../../../support/fixture.ts';
import { type HandlerHarness, linkOwnKey, startHandlerHarness } from '../../../support/handler-context.ts';

let harness: HandlerHarness;
beforeAll(async () => {
  harness = await startHandlerHarness();
  // Max linked Dave's key (Beta's organisation): what he reads is Beta's, not the workspace's (Acme's).
  await linkOwnKey(harness, 'U0MEMBER', KEYS.daveBeta);
}, 60_000);
afterAll(async () => harness?.close());

const BELFAST = 'Belfast County Council';

/** The action ids of every element of the answers. */
function actionIds(answers: unknown): string[] {
  return [...JSON.stringify(answers).matchAll(/"action_id":"([^"]+)"/g)].map((match) => match[1] as string);
}

async function buyerId(name: string): Promise<string> {
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  const found = (await client.buyers.list({ q: name, limit: 5 })).data.find((buyer) => buyer.name === name);
  if (!found) throw new Error(`no buyer ${name}`);
  return found.id;
}

describe('directoryCommand (/tender buyers|suppliers|frameworks)', () => {
  it('lists the buyers a word finds, each with its Details button', async () => {
    const request = harness.request();
    await directoryCommand(harness.context, request, 'buyers', 'Belfast');
    expect(request.answers).toHaveLength(1);
    expect(request.answers[0]?.response_type).toBe('ephemeral');
    expect(JSON.stringify(request.answers)).toContain(BELFAST);
    expect(actionIds(request.answers)).toContain(DirectoryIds.showBuyer);
  });

  it('reads a region of two words typed without quotes as the region the data names, and says so', async () => {
    const request = harness.request();
    await directoryCommand(harness.context, request, 'buyers', 'region:south west');
    const said = request.said();
    expect(JSON.stringify(request.answers)).toContain(
      'Read `region:south west` as `region:\\"South West\\"`',
    );
    expect(said).toMatch(/Buyers matching in South West/);
    expect(actionIds(request.answers)).toContain(DirectoryIds.showBuyer);
    // Frameworks have no region: nothing is read with the words after it.
    const frameworks = harness.request();
    await directoryCommand(harness.context, frameworks, 'frameworks', 'catering region:south west');
    expect(JSON.stringify(frameworks.answers)).not.toContain('Read `region:');
  });

  it('lists frameworks by status, and redraws in place for a Next click', async () => {
    const request = harness.request({ kind: 'click' });
    await directoryCommand(harness.context, request, 'frameworks', 'catering status:live', {
      offset: 0,
      replace: true,
    });
    expect(request.answers[0]?.replace_original).toBe(true);
    expect(JSON.stringify(request.answers)).toContain('School catering services framework');
    expect(actionIds(request.answers)).toContain(DirectoryIds.showFramework);
  });

  it('a misspelt word that finds nothing: the word meant, when it finds some, with a button that lists them', async () => {
    const request = harness.request();
    await directoryCommand(harness.context, request, 'buyers', 'cuncil');
    const shown = JSON.stringify(request.answers);
    expect(request.said()).toBe('No buyers match “cuncil”.');
    expect(shown).toMatch(/Did you mean \*council\*\? \d+ buyers match it\./);
    expect(JSON.parse(shown)[0].blocks.at(-1).elements).toEqual([
      expect.objectContaining({ action_id: SuggestionIds.commandMeant, value: 'buyers council' }),
    ]);
    // What the button runs lists buyers.
    const run = harness.request();
    await directoryCommand(harness.context, run, 'buyers', 'council');
    expect(actionIds(run.answers)).toContain(DirectoryIds.showBuyer);
    // The filters typed stay in the command offered; the mended words must find some under them.
    const inNorthernIreland = harness.request();
    await directoryCommand(harness.context, inNorthernIreland, 'buyers', 'cuncil region:"Northern Ireland"');
    expect(JSON.stringify(inNorthernIreland.answers)).toContain(
      '"value":"buyers council region:\\"Northern Ireland\\""',
    );
    // No council buys in the North West: "council" is offered there for nothing, so it is not.
    const inNorthWest = harness.request();
    await directoryCommand(harness.context, inNorthWest, 'buyers', 'cuncil region:"North West"');
    expect(JSON.stringify(inNorthWest.answers)).not.toContain('Did you mean');
    // A quoted word stays as typed: the words offered are the ones the button runs.
    const quoted = harness.request();
    await directoryCommand(harness.context, quoted, 'buyers', 'cuncil "belfst"');
    expect(JSON.stringify(quoted.answers)).not.toContain('Did you mean');
    // Words near nothing, or mended into words that find nothing: no offer, and what to try next.
    for (const [kind, words] of [
      ['suppliers', 'zzqqxx'],
      ['frameworks', 'zzqqxx'],
    ] as const) {
      const none = harness.request();
      await directoryCommand(harness.context, none, kind, words);
      expect(JSON.stringify(none.answers), words).not.toContain('Did you mean');
      expect(JSON.stringify(none.answers), words).toMatch(
        /[Tt]ry fewer or other words, or `\/tender help`\./,
      );
      if (kind === 'suppliers')
        expect(JSON.stringify(none.answers)).toContain(
          'Suppliers are found by their names (part of one will do), not by what they buy or sell',
        );
    }
  });

  it('refuses a filter it cannot read, saying why, and lists nothing', async () => {
    const request = harness.request();
    await directoryCommand(harness.context, request, 'frameworks', 'catering status:someday');
    expect(request.said()).toBe(
      '`status:someday` is not a framework status; a framework is upcoming, live or expired, as in `status:live`.',
    );
    expect(actionIds(request.answers)).not.toContain(DirectoryIds.showFramework);
  });
});

describe('showDirectoryEntry ("Details" on a buyer, supplier or framework)', () => {
  it('shows a buyer, and a framework, in full', async () => {
    const buyer = harness.request({ kind: 'click' });
    await showDirectoryEntry(harness.context, buyer, 'buyer', await buyerId(BELFAST));
    expect(JSON.stringify(buyer.answers)).toContain(BELFAST);
    const framework = harness.request({ kind: 'click' });
    await showDirectoryEntry(harness.context, framework, 'framework', LARGE_FRAMEWORK_ID);
    const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
    const { title } = await client.frameworks.get(LARGE_FRAMEWORK_ID);
    expect(framework.said()).toContain(title);
  });

  it('an id the service does not know: fails as not found (said about the button by the caller), answering nothing', async () => {
    const request = harness.request({ kind: 'click' });
    await expect(
      showDirectoryEntry(harness.context, request, 'supplier', '00000000-0000-4000-8000-000000000000'),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(request.answers).toEqual([]);
  });
});

describe('savedSearchesCommand (/tender saved)', () => {
  it('lists the workspace’s saved searches, each with Run', async () => {
    const request = harness.request({ userId: 'U0ADMIN' });
    await savedSearchesCommand(harness.context, request);
    const read = JSON.stringify(request.answers);
    expect(read).toContain('Acme search 1');
    expect(read).not.toContain('Beta: software');
    expect(actionIds(request.answers)).toContain(SavedSearchIds.run);
  });

  it('a person with their own key sees their organisation’s, never the workspace’s', async () => {
    const request = harness.request({ userId: 'U0MEMBER' });
    await savedSearchesCommand(harness.context, request);
    const read = JSON.stringify(request.answers);
    expect(read).toContain('Beta: software');
    expect(read).not.toContain('Acme search');
  });
});

describe('runSavedSearch ("Run" on a saved search)', () => {
  it('runs the saved query as a tender search headed by its name', async () => {
    const request = harness.request({ userId: 'U0ADMIN', kind: 'click' });
    await runSavedSearch(harness.context, request, 'ss-acme-001');
    expect(request.answers).toHaveLength(1);
    // The heading names its query (cleaning in the North West) and the saved search it came from.
    expect(request.said()).toContain('matching “cleaning”, in North West (saved search “Acme search 1”)');
  });

  it('refuses another organisation’s saved search (not found for this key), answering nothing', async () => {
    const request = harness.request({ userId: 'U0ADMIN', kind: 'click' });
    await expect(runSavedSearch(harness.context, request, 'ss-beta-1')).rejects.toBeInstanceOf(NotFoundError);
    expect(request.answers).toEqual([]);
  });
});
