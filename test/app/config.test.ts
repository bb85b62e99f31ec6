import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadBotConfig } from '../../src/app/config.ts';

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

  it('takes Socket Mode without a signing secret, and a .env file under the real environment', () => {
    const envFile = join(dir, '.env');
    writeFileSync(envFile, `PROCUREMENT_API_URL=http://from-file:4010\nLOG_LEVEL=debug\n`);
    const { SLACK_SIGNING_SECRET: _secret, PROCUREMENT_API_URL: _url, ...rest } = valid;
    const config = loadBotConfig({ ...rest, SLACK_APP_TOKEN: 'xapp-1-abc', LOG_LEVEL: 'warn' }, envFile);
    expect(config.PROCUREMENT_API_URL).toBe('http://from-file:4010');
    expect(config.LOG_LEVEL).toBe('warn');
  });
});
