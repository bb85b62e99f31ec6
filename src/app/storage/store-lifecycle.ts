/** What the one database behind every aggregate store answers for itself. */
export interface StoreLifecycle {
  /**
   * SQLite: the write-ahead log is copied into the database by a thread of its own rather than as
   * this process commits, so a checkpoint's fsync never stalls its event loop (the receiver's
   * process with ANSWER_WORKERS). PostgreSQL: nothing to do.
   */
  checkpointInBackground(): void;
  /** A trivial query: resolves when the database answers (health checks), throws otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
