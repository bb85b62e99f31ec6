// A stand-in answer worker for AnswerWorkers' own tests: it speaks the workers' IPC protocol (says
// ready, reports commands it is given as done) and does nothing else, so a test sees only what the
// receiver's side decides: what is given, when. With ANSWER_WHEN set, it holds what it is given
// until that file exists (a worker busy with slow answers), then answers everything at once.
import { existsSync } from 'node:fs';

const answerWhen = process.env.ANSWER_WHEN;
let held = [];
const answerHeld = () => {
  if (held.length === 0 || (answerWhen && !existsSync(answerWhen))) return;
  process.send({ kind: 'done', ids: held });
  held = [];
};
process.on('message', (message) => {
  if (message?.kind !== 'answer') return;
  held.push(message.command.id);
  answerHeld();
});
setInterval(answerHeld, 10);
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.send({ kind: 'ready' });
