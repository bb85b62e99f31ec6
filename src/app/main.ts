import { stopSignal } from '../shared/stop-signal.ts';
import { createBotApp } from './bot-app.ts';
import { ConfigError, loadBotConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { openBotStore } from './storage/bot-store.ts';

/** `tenderbot bot`: reads the configuration once, starts the app, stops cleanly on a signal. */
export async function runBot(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let config: ReturnType<typeof loadBotConfig>;
  try {
    config = loadBotConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const store = openBotStore(config.DATABASE_URL);
  const bot = createBotApp({ config, store, logger });
  const stopped = stopSignal();
  const port = await bot.start();
  logger.info({ port, mode: config.SLACK_APP_TOKEN ? 'socket' : 'http' }, 'tenderbot is running');
  await stopped;
  logger.info('stopping');
  await bot.stop();
  await store.close();
  logger.info('stopped');
  return 0;
}
