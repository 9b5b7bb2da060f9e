import { randomBytes } from 'node:crypto';
import { createApp } from '../api/app.js';
import { createBot } from '../domain/bots.js';
import { createLogger } from '../log/logger.js';
import { openResources } from '../resources.js';
import { startWorkers } from '../workers/index.js';
import { listen } from './http-server.js';
import { onShutdown } from './shutdown.js';
import { configOrExit } from './startup.js';

/**
 * `npm run demo`: web and worker in one process on the local Redis and FerretDB that
 * scripts/dev-services.sh started, a demo bot, and commands to paste. Every setting can still
 * be overridden from the environment.
 */
const config = configOrExit({
  ADMIN_TOKEN: randomBytes(24).toString('base64url'),
  MONGO_URL: 'mongodb://127.0.0.1:27017/herald_demo',
  REDIS_PREFIX: 'herald-demo',
  LOG_LEVEL: 'warn',
});
const log = createLogger(config.logLevel).child({ process: 'demo' });
try {
  const resources = await openResources(config, log);
  const workers = await startWorkers(resources);
  const running = await listen(createApp(resources).callback(), config.port, config.host);
  const { bot, token } = await createBot(resources, {
    name: 'Herald Demo Bot',
    default_score: 100,
    default_img_id: 'smile',
    img_list: [
      { id: 'smile', url: 'https://img.kookapp.cn/assets/demo/smile.png' },
      { id: 'heart', url: 'https://img.kookapp.cn/assets/demo/heart.png' },
    ],
  });
  const base = `http://localhost:${running.port}`;
  const lines = [
    '',
    `Herald demo is running at ${base} (Ctrl-C stops it)`,
    `  admin token: ${config.adminToken}`,
    `  demo bot:    ${bot.name} (id ${bot.id}); token ${token}`,
    '',
    'Read a user intimacy record (defaults until the first update):',
    `  curl -s '${base}/api/v3/intimacy/index?user_id=10001' -H 'Authorization: Bot ${token}'`,
    '',
    'Update it:',
    `  curl -s -X POST '${base}/api/v3/intimacy/update' -H 'Authorization: Bot ${token}' \\`,
    `    -H 'Content-Type: application/json' -d '{"user_id":"10001","score":520,"social_info":"老朋友","img_id":"heart"}'`,
    '',
    'Operators (back office):',
    `  curl -s '${base}/admin/api/bot/list' -H 'Authorization: Bearer ${config.adminToken}'`,
    `  curl -s '${base}/readyz'`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  onShutdown(log, config.shutdownTimeoutMs, async () => {
    await running.close(config.shutdownTimeoutMs);
    await workers.close(config.shutdownTimeoutMs);
    await resources.close();
  });
} catch (err) {
  log.error('demo start-up failed', { error: err });
  process.exit(1);
}
