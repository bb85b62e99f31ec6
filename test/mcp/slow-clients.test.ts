import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMcpHttp, startMcpHttp } from '../../src/mcp/http.ts';
import { createMcpLogger } from '../../src/mcp/logger.ts';
import {
  realRequestsWhileSlow,
  startSlowClients,
  TEST_SLOW_CLIENT_LIMITS,
  tricklingBody,
  tricklingHeaders,
} from '../support/slow-clients.ts';

let mcp: RunningMcpHttp;
let port: number;

beforeAll(async () => {
  // No service behind it: the requests below are answered by the endpoint itself.
  mcp = await startMcpHttp({
    serviceUrl: 'http://127.0.0.1:9',
    port: 0,
    logger: createMcpLogger('silent'),
    slowClientLimits: TEST_SLOW_CLIENT_LIMITS,
  });
  port = Number(new URL(mcp.url).port);
});
afterAll(async () => {
  await mcp?.close();
});

describe('the MCP endpoint with clients that send a byte at a time', () => {
  it('closes 200 such connections, headers or body trickling, while real requests are answered', async () => {
    const slow = startSlowClients(
      port,
      [
        ...Array.from({ length: 100 }, () => tricklingHeaders('/mcp')),
        ...Array.from({ length: 100 }, () =>
          tricklingBody('/mcp', { authorization: 'Bearer pis_trickle', 'content-type': 'application/json' }),
        ),
      ],
      // Far more ticks than the limits let through: a connection still open after them outlasted.
      { tickMs: 200, maxTicks: 50 },
    );
    const { run, real } = await realRequestsWhileSlow(slow, [
      async () => {
        // No key: the endpoint's own 401.
        const answer = await request(mcp.url, { method: 'POST', body: '{}' });
        await answer.body.dump();
        return answer.statusCode;
      },
    ]);

    expect({
      closedByServer: run.closedByServer,
      outlasted: run.outlasted,
      neverConnected: run.neverConnected,
    }).toEqual({ closedByServer: 200, outlasted: 0, neverConnected: 0 });
    expect(real.length).toBeGreaterThan(0);
    expect(real.filter((answer) => answer.status !== 401)).toEqual([]);
    expect(real.some((answer) => answer.slowOpen === 200)).toBe(true);
  });
});
