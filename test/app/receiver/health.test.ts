import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedReceiver } from '../../../src/app/receiver/guarded-receiver.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-health-'));
let store: BotStore;
let receiver: GuardedReceiver;
let base: string;

beforeAll(async () => {
  store = openBotStore(`sqlite:${join(dir, 'bot.db')}`);
  receiver = new GuardedReceiver({
    signingSecret: 'signing-secret-value',
    store,
    logger: pino({ level: 'silent' }),
  });
  await receiver.start(0);
  base = `http://127.0.0.1:${receiver.port}`;
});
afterAll(async () => {
  await receiver?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function health(): Promise<{ status: number; body: unknown; text: string }> {
  const answer = await request(`${base}/healthz`);
  const text = await answer.body.text();
  return { status: answer.statusCode, body: JSON.parse(text), text };
}

describe('GET /healthz', () => {
  it('says the database answers, with no signature needed', async () => {
    expect(await health()).toMatchObject({ status: 200, body: { ok: true, database: 'up' } });
  });

  it('answers 503 once the database does not, and says nothing else', async () => {
    await store.close();
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ ok: false, database: 'down' });
    expect(down.text).not.toContain(dir);
  });

  it('serves the install pages only when the app installs through Add to Slack', async () => {
    const answer = await request(`${base}/slack/install`);
    await answer.body.dump();
    expect(answer.statusCode).toBe(404);
  });
});
