import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyCipher } from '../../src/app/security/key-cipher.ts';
import { type FakeMessage, FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { installApp } from '../../src/workbench/workspaces.ts';
import { newCredentials, type OAuthApp, startOAuthApp } from '../app/features/install/oauth-app.ts';
import { eventually } from '../support/bot.ts';
import { KEYS, TENDER_A, TENDER_B } from '../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import { textOf } from '../support/slack-text.ts';

// Issue 13, "Must show": after rotating ENCRYPTION_KEY every workspace still works and the old key
// is no longer needed. Two workspaces installed through "Add to Slack" with key A, each with its
// service key, and a person's own key; copies on B (reading A as the previous key) answer while
// the command rotates; then an app with only B answers in both workspaces.

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const credentials = newCredentials();
const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');

interface TestWorkspace {
  teamId: string;
  admin: string;
  member: string;
  channel: string;
  key: string;
  tender: string;
}

const FIRST: TestWorkspace = {
  teamId: 'T0TENDER',
  admin: 'U0ADMIN',
  member: 'U0MEMBER',
  channel: 'C0BIDS',
  key: KEYS.bobAdminAcme,
  tender: TENDER_A,
};
const SECOND: TestWorkspace = {
  teamId: 'T0SECOND',
  admin: 'U1ADMIN',
  member: 'U1MEMBER',
  channel: 'C1BIDS',
  key: KEYS.daveBeta,
  tender: TENDER_B,
};

let sandbox: TestSandbox;
let slack: FakeSlack;
let databasePath: string;

/** A copy of the app in this process on the shared database, with these keys, receiving Slack's requests. */
function startCopy(encryptionKey: string, previousKey?: string): Promise<OAuthApp> {
  return startOAuthApp({
    slack,
    serviceUrl: sandbox.baseUrl,
    databaseUrl: `sqlite:${databasePath}`,
    credentials,
    encryptionKey,
    ...(previousKey ? { previousKey } : {}),
  });
}

/** `person` types `/tender TEXT` in their workspace: the next message they see there. */
async function command(workspace: TestWorkspace, person: string, text: string): Promise<FakeMessage> {
  const team = slack.team(workspace.teamId);
  const before = team.messagesIn(workspace.channel, person).length;
  const answer = await team.slashCommand(person, workspace.channel, '/tender', text);
  expect(answer.status).toBe(200);
  return eventually(
    () => team.answerTo(answer, workspace.channel, person, before),
    `an answer to /tender ${text}`,
  );
}

/** Submits a key in the connect window `/tender TEXT` opens. */
async function connect(workspace: TestWorkspace, person: string, text: string, key: string): Promise<void> {
  const team = slack.team(workspace.teamId);
  const before = new Set(team.openModals(person).map((modal) => modal.id));
  await team.slashCommand(person, workspace.channel, '/tender', text);
  const modal = await eventually(
    () => team.openModals(person).find((each) => !before.has(each.id)),
    `the window of /tender ${text}`,
  );
  const answer = await team.submitView(person, modal.id, { 'connect/key': key });
  expect(answer.status).toBe(200);
  expect(answer.json?.response_action).toBeUndefined();
}

/** Each workspace answers with its own token and its own key; the member's own key is read too. */
async function expectEveryWorkspaceWorks(): Promise<void> {
  for (const workspace of [FIRST, SECOND]) {
    const card = textOf(await command(workspace, workspace.admin, `show ${workspace.tender}`));
    expect(card).toContain(workspace.tender);
    expect(card).not.toMatch(/cannot be decrypted|must reconnect|not installed/i);
  }
  const own = textOf(await command(FIRST, FIRST.member, `show ${FIRST.tender}`));
  expect(own).toContain(FIRST.tender);
  expect(own).not.toMatch(/cannot be decrypted|link (it|your own key) again/i);
  expect(textOf(await command(FIRST, FIRST.member, 'status'))).toContain('*Your key*: your own');
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  databasePath = join(sandbox.dir, 'rotation.db');
  slack = new FakeSlack({
    signingSecret: `signing-${randomBytes(8).toString('hex')}`,
    botToken: `xoxb-unused-${randomBytes(6).toString('hex')}`,
  });
  slack.addWorkspace({
    teamId: SECOND.teamId,
    teamName: 'Second Bid Team',
    domain: 'second-bids',
    users: [
      { id: SECOND.admin, name: 'sam', realName: 'Sam Second', isAdmin: true },
      { id: SECOND.member, name: 'mia', realName: 'Mia Member' },
    ],
    channels: [{ id: SECOND.channel, name: 'bids' }],
  });
  await slack.start();
}, 60_000);

afterAll(async () => {
  await slack?.stop();
  await sandbox?.stop();
});

describe('rotating ENCRYPTION_KEY with the app running', () => {
  it('keeps every workspace working, and afterwards the old key is no longer needed', async () => {
    // With key A: both workspaces installed and connected, and a member's own key.
    const onA = await startCopy(KEY_A);
    for (const workspace of [FIRST, SECOND]) {
      expect(await installApp(slack, onA.base, workspace.teamId)).toContain('Tenderbot is installed');
      await connect(workspace, workspace.admin, 'connect', workspace.key);
    }
    await connect(FIRST, FIRST.member, 'connect me', KEYS.aliceAcme);
    await expectEveryWorkspaceWorks();
    const secrets = await onA.store.listSecrets();
    expect(secrets.map((secret) => secret.kind).sort()).toEqual([
      'connection',
      'connection',
      'installation',
      'installation',
      'personal-key',
    ]);
    await onA.stop();

    // The copies restart with B, keeping A as the previous key: they read A's secrets.
    const onBoth = await startCopy(KEY_B, KEY_A);
    await expectEveryWorkspaceWorks();
    // The command runs while that copy answers.
    let rotated = false;
    const rotation = run(process.execPath, ['--import', 'tsx', 'src/cli/rotate-encryption-key.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        ENCRYPTION_KEY: KEY_B,
        ENCRYPTION_KEY_PREVIOUS: KEY_A,
        DATABASE_URL: `sqlite:${databasePath}`,
      },
    }).finally(() => {
      rotated = true;
    });
    let rounds = 0;
    while (!rotated || rounds === 0) {
      await expectEveryWorkspaceWorks();
      rounds += 1;
    }
    const { stdout } = await rotation;
    expect(stdout).toContain('Checked 5 stored secrets: 5 written again with the new ENCRYPTION_KEY');
    expect(stdout).toContain('ENCRYPTION_KEY_PREVIOUS is no longer needed');
    await onBoth.stop();

    // Only B now: every workspace still works, and every stored secret is B's alone.
    const onB = await startCopy(KEY_B);
    await expectEveryWorkspaceWorks();
    const onlyB = new KeyCipher(KEY_B);
    const stored = await onB.store.listSecrets();
    expect(stored).toHaveLength(5);
    for (const secret of stored) {
      expect(onlyB.isCurrent(secret.encrypted)).toBe(true);
      expect(() => new KeyCipher(KEY_A).decrypt(secret.encrypted)).toThrow();
    }
    expect(
      onlyB.decrypt((await onB.store.getPersonalKey(FIRST.teamId, FIRST.member))?.encryptedApiKey ?? ''),
    ).toBe(KEYS.aliceAcme);
    await onB.stop();
  }, 120_000);
});
