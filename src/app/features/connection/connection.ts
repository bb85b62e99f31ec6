/*
 * The connection feature's handlers used to live in this one file; each concern now has its own
 * (workspace-key.ts, personal-key.ts, settings.ts, status.ts). These re-exports keep the old path
 * importable for its callers until they import the new files.
 */
export type { SubmissionAnswer } from './key-trial.ts';
export { settingsCommand } from './settings.ts';
export { statusCommand } from './status.ts';
export {
  CONNECT_ACK_BUDGET_MS,
  confirmDisconnect,
  connectCommand,
  disconnectCommand,
  keepKey,
  openConnectModal,
  submitConnectModal,
  submitConnectWithinBudget,
} from './workspace-key.ts';
