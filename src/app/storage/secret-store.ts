/** Which kind of stored secret (for key rotation). */
type SecretKind = 'connection' | 'installation' | 'personal-key';

/** One stored secret; `ref` is an opaque id the store that listed it understands. */
export interface StoredSecret {
  kind: SecretKind;
  ref: string;
  encrypted: string;
}

/** Every encrypted column, whichever table holds it (key rotation). */
export interface SecretStore {
  /** Every stored secret (key rotation). */
  listSecrets(): Promise<StoredSecret[]>;
  /** Compare-and-set: replaces the secret with `next` only if it is still `secret.encrypted`; false when it changed meanwhile or is gone. */
  replaceSecret(secret: StoredSecret, next: string): Promise<boolean>;
}
