// The failure sentences moved to src/app/shared/failure-sentences.ts (chosen by code there).
export {
  describeFailure,
  EXPIRED_TRIGGER_SENTENCE,
  type FailureDescription,
} from '../shared/failure-sentences.ts';
