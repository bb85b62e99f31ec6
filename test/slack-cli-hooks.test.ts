import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FakeSlack } from '../src/fake-slack/fake-slack.ts';
import { eventually } from './support/bot.ts';
import { KEYS } from './support/fixture.ts';
import { startTestSandbox, type TestSandbox } from './support/sandbox.ts';

// The Slack CLI cannot be reached here, so its hooks are run as it runs them: each command of
// .slack/hooks.json in a shell at the project's root, reading what it prints.
const root = resolve(import.meta.dirname, '..');
const hooksFile = JSON.parse(readFileSync(join(root, '.slack/hooks.json'), 'utf8'));
const manifest = parse(readFileSync(join(root, 'manifest.yml'), 'utf8'));

function runHook(name: string, args = ''): string {
  const command = hooksFile.hooks[name] as string;
  return execSync(`${command} ${args}`, { cwd: root, encoding: 'utf8', timeout: 30_000 });
}

describe('the Slack CLI hooks (.slack/hooks.json)', () => {
  it('get-hooks prints the hooks, the protocol and the runtime the CLI expects', () => {
    const printed = JSON.parse(runHook('get-hooks'));
    expect(Object.keys(printed.hooks)).toEqual(expect.arrayContaining(['get-manifest', 'start']));
    expect(printed.runtime).toBe('node');
    expect(printed.config['protocol-version']).toContain('message-boundaries');
    // Socket Mode connections are the app's own (Bolt's), not the CLI's.
    expect(printed.config['sdk-managed-connection-enabled']).toBe(true);
    // The project's own get-manifest and start take the place of the package's (manifest.yml, tenderbot bot).
    expect(hooksFile.hooks['get-manifest']).toBe('node .slack/hooks/get-manifest.js');
    expect(hooksFile.hooks.start).toBe('node .slack/hooks/start.js');
    for (const name of ['get-manifest', 'start'])
      expect(existsSync(join(root, (hooksFile.hooks[name] as string).split(' ')[1] as string))).toBe(true);
    expect(hooksFile.config.watch.manifest.paths).toEqual(['manifest.yml']);
  });

  it('get-manifest prints manifest.yml as JSON, the whole of it and nothing else', () => {
    const printed = JSON.parse(runHook('get-manifest'));
    expect(printed).toEqual(manifest);
    expect(Object.keys(printed.functions)).toContain('start_bid_from_tender');
  });

  it('get-manifest answers between the boundaries the CLI names (message-boundaries protocol)', () => {
    const boundary = `b${randomBytes(6).toString('hex')}`;
    const printed = runHook('get-manifest', `--protocol=message-boundaries --boundary=${boundary}`).trim();
    expect(printed.startsWith(boundary) && printed.endsWith(boundary)).toBe(true);
    expect(JSON.parse(printed.slice(boundary.length, -boundary.length))).toEqual(manifest);
  });

  it('start refuses to run without the tokens `slack run` gives', () => {
    const env = { ...process.env, SLACK_APP_TOKEN: '', SLACK_CLI_XAPP: '', SLACK_BOT_TOKEN: '' };
    expect(() => execSync(hooksFile.hooks.start, { cwd: root, env, stdio: 'pipe' })).toThrow(
      /Run this through `slack run`/,
    );
  });
});

describe('`slack run`: the start hook starts Tenderbot in Socket Mode', () => {
  const appToken = `xapp-1-cli-${randomBytes(8).toString('hex')}`;
  const botToken = `xoxb-cli-${randomBytes(8).toString('hex')}`;
  let sandbox: TestSandbox;
  let slack: FakeSlack;
  let child: ChildProcess | null = null;
  let output = '';

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child?.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    await slack?.stop();
    await sandbox?.stop();
  });

  it('connects with the CLI’s tokens and runs a Workflow Builder step over the socket', async () => {
    sandbox = await startTestSandbox();
    // No appUrl: nothing can reach the app but its own socket.
    slack = await new FakeSlack({ signingSecret: 'unused', botToken, appToken }).start();
    slack.workflows.declare(manifest.functions);
    child = spawn(process.execPath, ['.slack/hooks/start.js'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        // The names older CLIs give the tokens; the hook passes them on as the bot reads them.
        SLACK_CLI_XAPP: appToken,
        SLACK_CLI_XOXB: botToken,
        SLACK_API_URL: slack.apiUrl,
        PROCUREMENT_API_URL: sandbox.baseUrl,
        PROCUREMENT_API_KEY: KEYS.carolMemberAcme,
        DATABASE_URL: `sqlite:${join(sandbox.dir, 'cli-bot.db')}`,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        PORT: '0',
      },
    });
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    const running = await eventually(
      () => output.split('\n').find((line) => line.includes('tenderbot is running')),
      `the bot to start (output: ${output.slice(-500)})`,
      30_000,
    );
    expect(JSON.parse(running).mode).toBe('socket');
    expect(slack.callsOf('apps.connections.open').length).toBeGreaterThan(0);
    const { run } = await slack.workflows.run('find_new_tenders', {
      words: 'cleaning',
      published_within_days: 365,
    });
    const ended = await Promise.race([
      run.ended,
      new Promise<null>((done) => setTimeout(() => done(null), 10_000)),
    ]);
    expect(ended?.state, ended?.error ?? 'no ending').toBe('completed');
    expect(Number(ended?.outputs?.count)).toBeGreaterThan(0);
  }, 60_000);
});
