import { randomBytes } from 'node:crypto';
import { createHttpHandler } from '../api/app.js';
import { createBot } from '../domain/bots.js';
import { addMember, createChannel, createGuild, upsertUser } from '../domain/directory/index.js';
import { createPipe } from '../domain/pipes/pipes.js';
import { createTemplate } from '../domain/templates/index.js';
import { listen } from '../http/server.js';
import { createLogger } from '../log/logger.js';
import { openResources } from '../resources.js';
import { newNumericId } from '../store/index.js';
import { WorkerHeartbeat } from '../workers/heartbeat.js';
import { startWorkers } from '../workers/index.js';
import { onShutdown } from './shutdown.js';
import { configOrExit } from './startup.js';

/** The demo pipe's template: a GitLab push as KMarkdown. */
const DEMO_TEMPLATE = [
  '**{{ data.user_name }}** pushed {{ data.total_commits_count }} commit{{ data.total_commits_count == 1 ? "" : "s" }}' +
    ' to `{{ data.ref|split("/")|last }}` of [{{ data.project.name }}]({{ data.project.web_url }})',
  '{% for c in data.commits %}',
  '- [{{ c.id|slice(0, 8) }}]({{ c.url }}) {{ c.title }} ({{ c.author.name }})',
  '{% endfor %}',
].join('\n');

/** A small GitLab push event body for the printed curl. */
const DEMO_PUSH = JSON.stringify({
  object_kind: 'push',
  ref: 'refs/heads/main',
  user_name: 'Ada',
  total_commits_count: 1,
  project: { name: 'herald', web_url: 'https://gitlab.example.com/demo/herald' },
  commits: [
    {
      id: '8fd1be4c0a1b2c3d',
      title: 'Fix the loader',
      url: 'https://gitlab.example.com/demo/herald/-/commit/8fd1be4c',
      author: { name: 'Ada' },
    },
  ],
});

/**
 * `npm run demo`: web and worker in one process on the local Redis and FerretDB that
 * scripts/dev-services.sh started, a demo bot, and commands to paste. Every setting can still
 * be overridden from the environment.
 */
const config = configOrExit({
  ADMIN_TOKEN: randomBytes(24).toString('base64url'),
  // The demo's own key for signed pipes' secrets, fixed so its database's secrets open on every
  // run; never use it outside the demo (openssl rand -hex 32 makes a real one).
  SECRETS_KEY: 'd3e0d3e0d3e0d3e0d3e0d3e0d3e0d3e0d3e0d3e0d3e0d3e0d3e0d3e0d3e0d3e0',
  MONGO_URL: 'mongodb://127.0.0.1:27017/herald_demo',
  REDIS_PREFIX: 'herald-demo',
  LOG_LEVEL: 'warn',
});
const log = createLogger(config.logLevel).child({ process: 'demo' });
try {
  const resources = await openResources(config, log);
  const workers = await startWorkers(resources, resources.pipeRuntime.queues);
  // Shows the demo's worker in the back office's overview while it runs.
  const heartbeat = new WorkerHeartbeat(resources.redis, config.redisPrefix, config.workerConcurrency, log);
  await heartbeat.start();
  const running = await listen(createHttpHandler(resources), config.port, config.host);
  const { bot, token } = await createBot(resources, {
    name: 'Herald Demo Bot',
    default_score: 100,
    default_img_id: 'smile',
    img_list: [
      { id: 'smile', url: 'https://img.kookapp.cn/assets/demo/smile.png' },
      { id: 'heart', url: 'https://img.kookapp.cn/assets/demo/heart.png' },
    ],
  });
  // A server with a text channel the bot has joined, a template and a pipe bound to it, so the
  // whole path (pipe -> queue -> worker -> channel timeline) can be tried from the shell.
  const owner = await upsertUser(resources, newNumericId(), { username: 'demo-owner' });
  const guild = await createGuild(resources, { name: 'Herald Demo Server', user_id: owner.id });
  const channel = await createChannel(resources, { guild_id: guild.id, name: 'ci', type: 1 });
  await addMember(resources, guild.id, bot.user_id);
  const { model: template } = await createTemplate(resources, bot, {
    title: 'GitLab push (KMarkdown)',
    msgtype: 1,
    content: DEMO_TEMPLATE,
  });
  const { pipe, url: pipeUrl } = await createPipe(resources, {
    bot_id: bot.id,
    title: 'GitLab',
    channel_id: channel.id,
    template_id: template.id,
  });
  const base = `http://localhost:${running.port}`;
  const lines = [
    '',
    `Herald demo is running at ${base} (Ctrl-C stops it)`,
    ...(config.console ? [`  console:     ${base}/console/  (sign in with the admin token)`] : []),
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
    `Send a GitLab-style push through the pipe "${pipe.title}" (template ${template.id}, channel #${channel.name}):`,
    `  curl -s -X POST '${pipeUrl}' \\`,
    `    -H 'Content-Type: application/json' -d '${DEMO_PUSH}'`,
    '',
    'Then its delivery status (use the msg_id from the answer), and the channel timeline:',
    `  curl -s '${base}/api/v3/message/pipemsg-status?msg_id=<msg_id>' -H 'Authorization: Bot ${token}'`,
    `  curl -s '${base}/api/v3/message/list?target_id=${channel.id}' -H 'Authorization: Bot ${token}'`,
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
    await heartbeat.stop();
    await resources.close();
  });
} catch (err) {
  log.error('demo start-up failed', { error: err });
  process.exit(1);
}
