import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseEnv } from 'node:util';
import { KeyCipher } from '../app/security/key-cipher.ts';
import type { BotStore, StoredSecret } from '../app/storage/bot-store.ts';
import { openBotStore } from '../app/storage/open-bot-store.ts';

/** What a rotation did; counts only, never a secret. */
export interface RotationReport {
  /** Secrets found. */
  checked: number;
  /** Written again with ENCRYPTION_KEY by this run. */
  reencrypted: number;
  /** Already written with ENCRYPTION_KEY (a second run, or written by the app since the key changed). */
  alreadyCurrent: number;
  /** Readable with neither key: named by kind and workspace, so someone can connect again. */
  unreadable: { kind: StoredSecret['kind']; ref: string }[];
  /** Changed by the app meanwhile more times than the passes allowed (run it again). */
  stillChanging: number;
}

/** A secret changed meanwhile (a person reconnected) is read and written again, this many times at most. */
const PASSES = 5;

/**
 * Re-encrypts every stored secret with the cipher's current key. Each value is replaced only if
 * it is still the one read (compare-and-set), so a key saved by the app meanwhile is never
 * overwritten: it is read again on the next pass. Every step is one write, so the command can be
 * interrupted and run again; values already written with the current key are left as they are.
 */
export async function rotateEncryptionKey(store: BotStore, cipher: KeyCipher): Promise<RotationReport> {
  const report: RotationReport = {
    checked: 0,
    reencrypted: 0,
    alreadyCurrent: 0,
    unreadable: [],
    stillChanging: 0,
  };
  const unreadable = new Map<string, { kind: StoredSecret['kind']; ref: string }>();
  let changedMeanwhile: StoredSecret[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    const secrets = await store.listSecrets();
    if (pass === 0) report.checked = secrets.length;
    const retried = new Set(changedMeanwhile.map(identify));
    // After the first pass only those that changed meanwhile are looked at again.
    const todo = pass === 0 ? secrets : secrets.filter((secret) => retried.has(identify(secret)));
    changedMeanwhile = [];
    for (const secret of todo) {
      if (cipher.isCurrent(secret.encrypted)) {
        if (pass === 0) report.alreadyCurrent += 1;
        continue;
      }
      let plain: string;
      try {
        plain = cipher.decrypt(secret.encrypted);
      } catch {
        unreadable.set(identify(secret), { kind: secret.kind, ref: secret.ref });
        continue;
      }
      if (await store.replaceSecret(secret, cipher.encrypt(plain))) report.reencrypted += 1;
      else changedMeanwhile.push(secret);
    }
    if (changedMeanwhile.length === 0) break;
  }
  // Those changed meanwhile and then found current were written by the app with the new key.
  const latest = new Map((await store.listSecrets()).map((secret) => [identify(secret), secret]));
  report.stillChanging = changedMeanwhile.filter((secret) => {
    const now = latest.get(identify(secret));
    return now !== undefined && !cipher.isCurrent(now.encrypted);
  }).length;
  report.unreadable = [...unreadable.values()];
  return report;
}

function identify(secret: StoredSecret): string {
  return `${secret.kind} ${secret.ref}`;
}

/** The report in sentences for the person running the command. */
export function describeRotation(report: RotationReport): string[] {
  const lines = [
    `Checked ${report.checked} stored secrets: ${report.reencrypted} written again with the new ENCRYPTION_KEY, ${report.alreadyCurrent} already written with it.`,
  ];
  if (report.unreadable.length > 0) {
    lines.push(
      `${report.unreadable.length} could be read with neither key and were left as they are (they must be connected again):`,
      ...report.unreadable.map(({ kind, ref }) => `  ${kind} ${ref}`),
    );
  }
  if (report.stillChanging > 0) {
    lines.push(`${report.stillChanging} kept changing while this ran: run the command again.`);
  }
  if (report.unreadable.length === 0 && report.stillChanging === 0) {
    lines.push('Every stored secret now uses the new key: ENCRYPTION_KEY_PREVIOUS is no longer needed.');
  }
  return lines;
}

/**
 * `node --import tsx src/cli/rotate-encryption-key.ts`, with ENCRYPTION_KEY (the new key),
 * ENCRYPTION_KEY_PREVIOUS (the old one) and DATABASE_URL as the app has them (the environment,
 * then `.env`). Exit code 0 when every secret uses the new key, 1 when some did not, 2 when it
 * could not start.
 */
export async function main(env: NodeJS.ProcessEnv = process.env, envFile = '.env'): Promise<number> {
  const merged: NodeJS.ProcessEnv = { ...env };
  if (envFile && existsSync(envFile)) {
    for (const [name, value] of Object.entries(parseEnv(readFileSync(envFile, 'utf8'))))
      merged[name] ??= value;
  }
  const current = merged.ENCRYPTION_KEY;
  const previous = merged.ENCRYPTION_KEY_PREVIOUS;
  if (!current || !previous) {
    console.error(
      'Set ENCRYPTION_KEY to the new key and ENCRYPTION_KEY_PREVIOUS to the key in use until now, then run this again.',
    );
    return 2;
  }
  let cipher: KeyCipher;
  let store: BotStore;
  try {
    cipher = new KeyCipher(current, previous);
    store = openBotStore(merged.DATABASE_URL || 'sqlite:./data/tenderbot.db');
  } catch (error) {
    console.error(`Cannot start: ${(error as Error).message}.`);
    return 2;
  }
  try {
    const report = await rotateEncryptionKey(store, cipher);
    for (const line of describeRotation(report)) console.log(line);
    return report.unreadable.length === 0 && report.stillChanging === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
