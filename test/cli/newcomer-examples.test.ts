import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THINGS_TO_TRY } from '../../src/app/shared/views/getting-started.ts';
import { helpMessage } from '../../src/app/shared/views/messages.ts';
import { type RunningWorkbench, startWorkbench } from '../../src/cli/start-workbench.ts';
import { eventually } from '../support/bot.ts';

// The searches a newcomer is shown (the welcome's and Home's things to try, the help's sentence,
// the workbench's composer) are the first they run: each must find tenders in what `npm start`
// serves, its demo data as generated today. An example the data cannot answer reads as a broken app.

const MEMBER = 'U0MEMBER';
const CHANNEL = 'C0BIDS';
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-newcomer-examples-'));
let workbench: RunningWorkbench;

beforeAll(async () => {
  // As `npm start` does: no --demo, so the default number of demo tenders.
  workbench = await startWorkbench({ dataDir: dir, port: 0, servicePort: 0, botPort: 0 });
}, 120_000);

afterAll(async () => {
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };
const decoded = (text: string) => text.replace(/&lt;|&gt;|&amp;/g, (entity) => ENTITIES[entity] ?? entity);

/** Every `/tender search …` the things to try and the composer's placeholder show. */
function exampleCommands(): string[] {
  const shown = [
    ...THINGS_TO_TRY,
    readFileSync(join(import.meta.dirname, '../../src/workbench/public/index.html'), 'utf8'),
  ].join('\n');
  return [...shown.matchAll(/`?(\/tender search [^`"\n]+)/g)].map((match) =>
    decoded(match[1] as string).trim(),
  );
}

/** The sentences the help offers to message Tenderbot with (in “…”). */
function exampleSentences(): string[] {
  const help = JSON.stringify(helpMessage().blocks);
  return [...help.matchAll(/“([^”]+)”/g)].map((match) => decoded(match[1] as string));
}

/** The answers a person has seen in a conversation since `before` messages. */
function answersAfter(channel: string, before: number): string {
  return JSON.stringify(workbench.slack.messagesIn(channel, MEMBER).slice(before));
}

describe('the examples a newcomer is shown', () => {
  it('are found: there is at least one command and one sentence to try', () => {
    expect(exampleCommands()).toEqual(
      expect.arrayContaining(['/tender search cleaning closes<30d', '/tender search cleaning']),
    );
    expect(exampleSentences().length).toBeGreaterThan(0);
  });

  it('each find tenders in the data `npm start` serves', async () => {
    for (const example of exampleCommands()) {
      const before = workbench.slack.messagesIn(CHANNEL, MEMBER).length;
      const ack = await workbench.slack.slashCommand(
        MEMBER,
        CHANNEL,
        '/tender',
        example.slice('/tender '.length),
      );
      expect(ack.status, example).toBe(200);
      const answer = await eventually(
        () =>
          /tender\/bookmark|No tender/.test(answersAfter(CHANNEL, before)) && answersAfter(CHANNEL, before),
        `the answer to ${example}`,
        30_000,
      );
      expect(answer, example).toContain('tender/bookmark');
      expect(answer, example).not.toContain('No tender');
    }
    const dm = workbench.slack.dmOf(MEMBER);
    for (const sentence of exampleSentences()) {
      const before = workbench.slack.messagesIn(dm, MEMBER).length;
      await workbench.slack.sendAsUser(MEMBER, dm, sentence);
      const answer = await eventually(
        () => /tender\/bookmark|No tender/.test(answersAfter(dm, before)) && answersAfter(dm, before),
        `the answer to “${sentence}”`,
        30_000,
      );
      expect(answer, sentence).toContain('tender/bookmark');
      expect(answer, sentence).not.toContain('No tender');
    }
  }, 120_000);
});
