import type { Dispatcher } from 'undici';

/**
 * The service's answers are small: a page is at most 100 records, a problem at most 100 field
 * errors. A body past these sizes is not read further, so a broken or hostile server cannot
 * make the client hold or parse an unbounded answer.
 */
export const MAX_SUCCESS_BYTES = 32 * 1024 * 1024;
export const MAX_PROBLEM_BYTES = 1024 * 1024;

/** A body still arriving when the call's deadline passed (a server trickling its answer). */
export class DeadlinePassedError extends Error {
  constructor() {
    super('the answer was still arriving when the deadline passed');
  }
}

/**
 * The body as text, or null (its connection closed) once it passes `maxBytes`; rejects with
 * DeadlinePassedError when a part arrives after `deadlineAt` (performance.now() ms; silence is
 * undici's bodyTimeout). Read by 'data' events rather than `for await`, which costs a promise per
 * chunk (measured in bench:client).
 */
export function readBounded(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  deadlineAt = Number.POSITIVE_INFINITY,
): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      if (performance.now() > deadlineAt) {
        chunks.length = 0;
        body.destroy();
        reject(new DeadlinePassedError());
        return;
      }
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        body.destroy();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    body.once('end', () => {
      resolve(
        chunks.length === 1
          ? (chunks[0] as Buffer).toString('utf8')
          : Buffer.concat(chunks, size).toString('utf8'),
      );
    });
    body.once('error', reject);
  });
}

/** The body as JSON, or null when it is empty or not JSON (a proxy's HTML page, a cut answer). */
export function parseJson(text: string): unknown {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
