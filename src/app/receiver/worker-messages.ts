/** What the receiver's process and its answer workers say to each other, and the ids of the commands they pass. */
import { randomUUID } from 'node:crypto';
import { NOT_KEPT } from './answer-worker-settings.ts';
import type { CommandToAnswer } from './queued-commands-receiver.ts';

/** What a worker and the receiver's process say to each other over the IPC channel. */
export type WorkerMessage =
  | { kind: 'ready' }
  | { kind: 'done'; ids: string[] }
  | { kind: 'answer'; command: CommandToAnswer };

export function isWorkerMessage(message: unknown): message is WorkerMessage {
  if (typeof message !== 'object' || message === null) return false;
  const { kind, ids } = message as { kind?: unknown; ids?: unknown };
  if (kind === 'ready') return true;
  return kind === 'done' && Array.isArray(ids) && ids.every((id) => typeof id === 'string');
}

/**
 * A UUIDv7-shaped id: the time in milliseconds first, so the queue's key is its order, then
 * randomUUID's random bits (from Node's own pool: the uuid package's v7 drew fresh random bytes
 * for every id, a measurable part of an acknowledgement).
 */
export function timeOrderedId(at: Date): string {
  const time = at.getTime().toString(16).padStart(12, '0');
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}

/**
 * A slash command's body as it is stored for a worker (JSON), without what is not kept (NOT_KEPT).
 * Copied field by field, in the body's own order, onto an object without a prototype (so a field
 * named `__proto__` stays a field): the same JSON as filtering Object.entries, without its arrays,
 * on every acknowledgement.
 */
export function keptFields(body: Record<string, unknown>): string {
  const kept: Record<string, unknown> = Object.create(null);
  for (const name in body) {
    if (Object.hasOwn(body, name) && !NOT_KEPT.includes(name)) kept[name] = body[name];
  }
  return JSON.stringify(kept);
}

/**
 * A verified slash command as a worker is given it (`plain`, the kept fields' JSON) and as it is
 * stored (`command`: its time-ordered id, its workspace, those fields sealed by `seal`).
 */
export function commandToStore(
  body: Record<string, unknown>,
  now: Date,
  seal: (plain: string) => string,
): { plain: string; command: { id: string; teamId: string | null; body: string; receivedAt: Date } } {
  const plain = keptFields(body);
  return {
    plain,
    command: {
      id: timeOrderedId(now),
      teamId: typeof body.team_id === 'string' ? body.team_id : null,
      body: seal(plain),
      receivedAt: now,
    },
  };
}
