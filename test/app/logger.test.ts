import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logger.ts';

describe('the logger', () => {
  it('writes JSON lines with keys, tokens and secrets redacted wherever they sit', () => {
    let output = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        output += chunk;
        done();
      },
    });
    const logger = createLogger('info', sink);
    logger.info({ apiKey: 'pis_secret_1', teamId: 'T1' }, 'connected');
    logger.info({ workspace: { apiKey: 'pis_secret_2', token: 'xoxb-secret-3' } }, 'nested');
    logger.warn({ req: { headers: { authorization: 'Bearer pis_secret_4' } } }, 'request');
    logger.info({ config: { botToken: 'xoxb-secret-5', signingSecret: 'sig-secret-6' } }, 'config');
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({
      apiKey: '[redacted]',
      teamId: 'T1',
      msg: 'connected',
      service: 'tenderbot',
    });
    for (const secret of ['pis_secret', 'xoxb-secret', 'sig-secret']) expect(output).not.toContain(secret);
  });
});
