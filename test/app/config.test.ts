import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadBotConfig, oauthSettings } from '../../src/app/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const valid = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-secret',
  SLACK_SIGNING_SECRET: 'signing-secret-value',
  PROCUREMENT_API_URL: 'http://127.0.0.1:4010',
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadBotConfig(env, '');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadBotConfig', () => {
  it('reads a valid environment with the defaults of CONTRACT.md §8', () => {
    expect(loadBotConfig(valid, '')).toMatchObject({
      SLACK_API_URL: 'https://slack.com/api/',
      DATABASE_URL: 'sqlite:./data/tenderbot.db',
      LOG_LEVEL: 'info',
      PORT: 3000,
    });
  });

  it('takes answer workers in HTTP mode on a database they share, and says why not otherwise', () => {
    expect(loadBotConfig({ ...valid, ANSWER_WORKERS: '2' }, '')).toMatchObject({
      ANSWER_WORKERS: 2,
      ANSWER_LEASE_SECONDS: 60,
      ANSWER_HOLD_SECONDS: 30,
    });
    expect(loadBotConfig({ ...valid, ANSWER_HOLD_SECONDS: '0' }, '')).toMatchObject({
      ANSWER_HOLD_SECONDS: 0,
    });
    expect(loadBotConfig(valid, '')).toMatchObject({ ANSWER_WORKERS: 0 });
    expect(problemsOf({ ...valid, ANSWER_WORKERS: '2', SLACK_APP_TOKEN: 'xapp-1-abc' })).toEqual([
      expect.stringMatching(/^ANSWER_WORKERS works with the HTTP receiver only/),
    ]);
    expect(problemsOf({ ...valid, ANSWER_WORKERS: '1', DATABASE_URL: 'sqlite::memory:' })).toEqual([
      expect.stringMatching(/^ANSWER_WORKERS needs a database the workers share/),
    ]);
    expect(
      problemsOf({ ...valid, ANSWER_WORKERS: '17', ANSWER_LEASE_SECONDS: '1', ANSWER_HOLD_SECONDS: '-1' }),
    ).toEqual([
      'ANSWER_WORKERS must be between 0 and 16.',
      'ANSWER_LEASE_SECONDS must be between 5 and 600 seconds.',
      'ANSWER_HOLD_SECONDS must be between 0 and 300 seconds.',
    ]);
    expect(problemsOf({ ...valid, ANSWER_WORKERS: 'many', PORT: 'http' })).toEqual([
      'PORT must be a port number.',
      'ANSWER_WORKERS must be a number of processes, 0 to 16.',
    ]);
  });

  it('says one sentence per missing or malformed variable, never its value', () => {
    const problems = problemsOf({
      SLACK_BOT_TOKEN: 'not-a-token',
      ENCRYPTION_KEY: 'c2hvcnQ=',
      LOG_LEVEL: 'loud',
      PORT: '99999',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'SLACK_BOT_TOKEN must be a bot token starting with xoxb-.',
        'PROCUREMENT_API_URL is missing.',
        'ENCRYPTION_KEY must be 32 random bytes in base64 (openssl rand -base64 32).',
        expect.stringMatching(/^LOG_LEVEL must be one of/),
        'PORT must be a port number.',
        'SLACK_SIGNING_SECRET is needed in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode).',
      ]),
    );
    expect(problems.join(' ')).not.toContain('not-a-token');
  });

  it('refuses a PROCUREMENT_API_KEY with a space or a character no key has, without echoing it', () => {
    for (const key of ['pis_default_0123 456789', 'pis_default_0123456789’', 'pis_dé_0123456789']) {
      const problems = problemsOf({ ...valid, PROCUREMENT_API_KEY: key });
      expect(problems, key).toEqual([
        'PROCUREMENT_API_KEY must be an API key (pis_…): letters, digits and punctuation, no spaces.',
      ]);
      expect(problems.join(' ')).not.toContain('0123');
    }
    expect(problemsOf({ ...valid, PROCUREMENT_API_KEY: 'pis_default_0123456789' })).toEqual([]);
    // A key read from a file keeps its line break: not part of the key.
    expect(problemsOf({ ...valid, PROCUREMENT_API_KEY: 'pis_default_0123456789\n' })).toEqual([]);
  });

  it('takes Socket Mode without a signing secret, and a .env file under the real environment', () => {
    const envFile = join(dir, '.env');
    writeFileSync(envFile, `PROCUREMENT_API_URL=http://from-file:4010\nLOG_LEVEL=debug\n`);
    const { SLACK_SIGNING_SECRET: _secret, PROCUREMENT_API_URL: _url, ...rest } = valid;
    const config = loadBotConfig({ ...rest, SLACK_APP_TOKEN: 'xapp-1-abc', LOG_LEVEL: 'warn' }, envFile);
    expect(config.PROCUREMENT_API_URL).toBe('http://from-file:4010');
    expect(config.LOG_LEVEL).toBe('warn');
  });

  it('takes the many-workspaces mode with the three OAuth variables instead of a bot token', () => {
    const { SLACK_BOT_TOKEN: _token, ...rest } = valid;
    const oauth = {
      ...rest,
      SLACK_CLIENT_ID: '1234567890.0987654321',
      SLACK_CLIENT_SECRET: 'client-secret-value',
      SLACK_STATE_SECRET: 'a'.repeat(40),
    };
    const config = loadBotConfig(oauth, '');
    expect(oauthSettings(config)).toEqual({
      clientId: '1234567890.0987654321',
      clientSecret: 'client-secret-value',
      stateSecret: 'a'.repeat(40),
      redirectUri: null,
    });
    expect(oauthSettings(loadBotConfig(valid, ''))).toBeNull();

    // Neither mode: one sentence naming both ways.
    expect(problemsOf(rest)).toEqual([
      expect.stringMatching(/^SLACK_BOT_TOKEN is missing .*SLACK_CLIENT_ID/),
    ]);
    // Half the OAuth variables: the missing one is named.
    const { SLACK_STATE_SECRET: _state, ...twoOfThree } = oauth;
    expect(problemsOf(twoOfThree)).toEqual([
      expect.stringMatching(/^SLACK_STATE_SECRET is missing: installing into many workspaces needs/),
    ]);
    // Both modes at once, or OAuth with Socket Mode, are refused with a sentence each.
    expect(problemsOf({ ...oauth, SLACK_BOT_TOKEN: valid.SLACK_BOT_TOKEN })).toEqual([
      expect.stringMatching(/^SLACK_BOT_TOKEN cannot be used with SLACK_CLIENT_ID/),
    ]);
    expect(problemsOf({ ...oauth, SLACK_APP_TOKEN: 'xapp-1-abc' })).toEqual([
      expect.stringMatching(/^SLACK_APP_TOKEN \(Socket Mode\) cannot be used with SLACK_CLIENT_ID/),
    ]);
    expect(problemsOf({ ...oauth, SLACK_REDIRECT_URI: 'https://bot.example/elsewhere' })).toEqual([
      'SLACK_REDIRECT_URI must end in /slack/oauth_redirect, where Tenderbot takes Slack’s answer.',
    ]);
    expect(
      oauthSettings(
        loadBotConfig({ ...oauth, SLACK_REDIRECT_URI: 'https://bot.example/slack/oauth_redirect' }, ''),
      )?.redirectUri,
    ).toBe('https://bot.example/slack/oauth_redirect');
    // No default service key with a public install page: each workspace connects its own.
    expect(problemsOf({ ...oauth, PROCUREMENT_API_KEY: 'pis_default_0123456789' })).toEqual([
      expect.stringMatching(/^PROCUREMENT_API_KEY cannot be used with SLACK_CLIENT_ID/),
    ]);
    expect(
      loadBotConfig({ ...valid, PROCUREMENT_API_URLS_ALLOWED: 'https://a.example,https://b.example' }, ''),
    ).toMatchObject({ PROCUREMENT_API_URLS_ALLOWED: 'https://a.example,https://b.example' });
    // A short state secret is said, never echoed.
    const short = problemsOf({ ...oauth, SLACK_STATE_SECRET: 'tiny-secret' });
    expect(short).toEqual([
      'SLACK_STATE_SECRET must be at least 32 random characters (openssl rand -hex 32).',
    ]);
    expect(short.join(' ')).not.toContain('tiny-secret');
  });
});
