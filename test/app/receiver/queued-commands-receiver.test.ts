import type { App } from '@slack/bolt';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  COMMAND_ATTEMPTS,
  type CommandToAnswer,
  QueuedCommandsReceiver,
  RESPONSE_URL_LIFETIME_MS,
} from '../../../src/app/receiver/queued-commands-receiver.ts';

// The answer worker's receiver on its own: which stored commands it runs through the app, which it
// gives up on with a sentence, which it drops; each reported done once.
describe('an answer worker’s receiver', () => {
  it('answers a command through the app, gives up on one that ended its worker too often, and drops one too old', async () => {
    const now = new Date('2026-11-23T06:00:00Z');
    const ran: Record<string, unknown>[] = [];
    const givenUp: Record<string, unknown>[] = [];
    const done: string[] = [];
    const receiver = new QueuedCommandsReceiver({
      logger: pino({ level: 'silent' }),
      clock: () => now,
      onDone: (id) => done.push(id),
      giveUp: async (body) => {
        givenUp.push(body);
      },
    });
    receiver.init({
      processEvent: async (event: { body: Record<string, unknown>; ack: () => Promise<void> }) => {
        await event.ack();
        ran.push(event.body);
      },
    } as unknown as App);
    const command = (id: string, attempts: number, ageMs: number): CommandToAnswer => ({
      id,
      body: JSON.stringify({
        command: '/tender',
        text: `search ${id}`,
        response_url: `https://hooks.slack.com/${id}`,
      }),
      receivedAt: now.getTime() - ageMs,
      attempts,
    });
    receiver.take(command('fresh', 1, 1000));
    receiver.take(command('retried', COMMAND_ATTEMPTS, 1000));
    receiver.take(command('poison', COMMAND_ATTEMPTS + 1, 1000));
    receiver.take(command('stale', 1, RESPONSE_URL_LIFETIME_MS));
    receiver.take({ id: 'broken', body: '{not json', receivedAt: now.getTime(), attempts: 1 });
    await receiver.idle();
    expect(ran.map((body) => body.text)).toEqual(['search fresh', 'search retried']);
    expect(givenUp.map((body) => body.response_url)).toEqual(['https://hooks.slack.com/poison']);
    expect(done.sort()).toEqual(['broken', 'fresh', 'poison', 'retried', 'stale']);
    expect(receiver.served).toBe(5);
  });
});
