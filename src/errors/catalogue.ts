/**
 * Every error Herald can answer with: a stable numeric code (never reused), the HTTP status, and
 * the message in each supported language. `{name}` placeholders are filled from the error's params.
 *
 * Codes are grouped by HTTP status (4xxyy / 5xxyy) so that a client reading only `code` can still
 * tell the class of failure. Add new entries at the end of their group; never renumber.
 */
export const LANGS = ['zh-CN', 'en-US'] as const;
export type Lang = (typeof LANGS)[number];
/** The platform's language: what a reader gets who asks for neither (api/lang.ts). */
export const DEFAULT_LANG: Lang = 'zh-CN';

export interface ErrorDef {
  readonly code: number;
  readonly status: number;
  readonly message: Readonly<Record<Lang, string>>;
}

const def = (code: number, status: number, zh: string, en: string): ErrorDef => ({
  code,
  status,
  message: { 'zh-CN': zh, 'en-US': en },
});

export const CATALOGUE = {
  // 400: the request is wrong; the message names the field and the rule.
  VALIDATION: def(40000, 400, '参数错误：{detail}', 'Invalid parameter: {detail}'),
  INVALID_JSON: def(
    40001,
    400,
    '请求体不是合法的 JSON：{detail}',
    'Request body is not valid JSON: {detail}',
  ),
  FORBIDDEN_KEY: def(
    40002,
    400,
    '请求中不允许出现键 "{key}"',
    'The key "{key}" is not allowed anywhere in the request',
  ),
  BODY_UNREADABLE: def(40003, 400, '请求体无法读取：{detail}', 'Request body could not be read: {detail}'),
  REQUEST_TARGET_INVALID: def(40004, 400, '请求地址不是合法的 URL', 'The request target is not a valid URL'),
  // Requests Node's HTTP parser refuses (a NUL, CR or LF inside a header, obs-fold, ...).
  REQUEST_MALFORMED: def(
    40005,
    400,
    '请求不是合法的 HTTP：{detail}',
    'The request is not valid HTTP: {detail}',
  ),
  TEMPLATE_COMPILE: def(
    40010,
    400,
    '模板编译失败（第 {line} 行第 {column} 列）：{detail}',
    'Template does not compile (line {line}, column {column}): {detail}',
  ),
  TEMPLATE_RENDER: def(
    40011,
    400,
    '模板渲染失败（第 {line} 行第 {column} 列）：{detail}',
    'Template rendering failed (line {line}, column {column}): {detail}',
  ),
  TEMPLATE_LIMIT: def(
    40012,
    400,
    '模板超出资源限制（{limit}）：{detail}',
    'Template exceeded a resource limit ({limit}): {detail}',
  ),
  CARD_SYNTAX: def(
    40013,
    400,
    '卡片消息无法解析（{format}）：{detail}',
    'Card message cannot be parsed ({format}): {detail}',
  ),
  CARD_INVALID: def(40014, 400, '卡片消息不合法：{detail}', 'Card message is invalid: {detail}'),
  MESSAGE_TOO_LONG: def(
    40015,
    400,
    '消息内容过长：{length} 个字符，最多 {max} 个',
    'Message content is too long: {length} characters, at most {max}',
  ),
  TEMPLATE_FEATURE_UNAVAILABLE: def(
    40016,
    400,
    '模板功能不可用（第 {line} 行第 {column} 列）：{feature}',
    'Template feature not available (line {line}, column {column}): {feature}',
  ),
  // 40020-40029: template lifecycle (issue 4).
  TEMPLATE_DELETED: def(
    40020,
    400,
    '模板 {id} 已被删除，不能再用于发送消息',
    'Template {id} has been deleted; messages that use it cannot be sent',
  ),
  TEMPLATE_BANNED: def(
    40021,
    400,
    '模板 {id} 已被封禁，不能用于发送消息',
    'Template {id} is banned and cannot be used to send messages',
  ),
  TEMPLATE_REVIEW_TRANSITION: def(
    40022,
    400,
    '模板审核状态不能执行“{action}”（当前状态 {status}）',
    'Template review: cannot {action} a template in status {status}',
  ),

  // 40023-40029: templates in the studio and on send-pipemsg (issue 19).
  TEMPLATE_TYPE_MISMATCH: def(
    40023,
    400,
    'type={type} 与管道模板 {id} 的消息格式不符（该模板生成 type={expected} 的消息）：请去掉 type 或改为 {expected}',
    "type={type} disagrees with the format of the pipe's template {id} (it makes type={expected} messages): omit type or send {expected}",
  ),

  // 40050-40059: pipe message delivery (issue 6).
  DELIVERY_INPUT_INVALID: def(
    40050,
    400,
    '管道消息内容无效：{detail}',
    'The pipe message input is not valid: {detail}',
  ),

  // 401: no credentials, or credentials we do not know.
  UNAUTHENTICATED: def(40100, 401, '缺少身份凭证', 'Authentication required'),
  INVALID_TOKEN: def(40101, 401, '身份凭证无效', 'Invalid token'),
  // 40102-40109: verified pipe senders (issue 20): the pipe requires a signature.
  SIGNATURE_MISSING: def(
    40102,
    401,
    '缺少签名：该管道只接受带 {header} 签名的请求',
    'Signature required: this pipe accepts only requests signed in {header}',
  ),
  SIGNATURE_INVALID: def(
    40103,
    401,
    '签名无效：{header} 与管道的签名密钥不符',
    "Invalid signature: {header} does not verify with the pipe's signing secret",
  ),
  SIGNATURE_EXPIRED: def(
    40104,
    401,
    '签名已过期：webhook-timestamp 与服务器时间相差超过 {tolerance_s} 秒',
    "Signature out of date: webhook-timestamp is more than {tolerance_s} s away from the server's clock",
  ),

  // 403: known caller, not allowed.
  FORBIDDEN: def(40300, 403, '没有权限执行此操作', 'Not allowed to perform this operation'),
  TEMPLATE_IN_REVIEW: def(
    40301,
    403,
    '模板正在审核中，不能修改',
    'The template is in review and cannot be modified',
  ),
  // The console's session cookie came without the session's X-CSRF-Token on a state change.
  CSRF_REJECTED: def(
    40302,
    403,
    '请求缺少有效的 X-CSRF-Token 请求头，已拒绝（请刷新控制台页面后重试）',
    'Refused: the request lacks a valid X-CSRF-Token header (reload the console and try again)',
  ),
  // A console sign-in sent by another site's page (Sec-Fetch-Site or Origin says so).
  CROSS_SITE_REJECTED: def(
    40303,
    403,
    '已拒绝：只能从控制台自己的页面登录',
    "Refused: a sign-in must come from the console's own page",
  ),

  // 40320-40329: pipe message delivery (issue 6).
  CHANNEL_NOT_VISIBLE: def(
    40320,
    403,
    '机器人无法查看频道 {channel_id}',
    'The bot cannot view channel {channel_id}',
  ),
  DELIVERY_PIPE_UNAVAILABLE: def(
    40321,
    403,
    '管道 {pipe_id} 已被停用或删除',
    'Pipe {pipe_id} was disabled or deleted',
  ),
  DELIVERY_BOT_UNAVAILABLE: def(
    40322,
    403,
    '机器人 {bot_id} 已被停用或删除',
    'Bot {bot_id} was disabled or deleted',
  ),
  DELIVERY_NO_PERMISSION: def(
    40323,
    403,
    '机器人在频道 {channel_id} 中缺少权限：{permission}',
    'The bot lacks the {permission} permission in channel {channel_id}',
  ),
  DELIVERY_TARGET_INVALID: def(
    40324,
    403,
    '频道 {channel_id} 不是管道所在服务器的文字频道',
    "Channel {channel_id} is not a text channel of the pipe's server",
  ),
  DELIVERY_TEMP_TARGET_INVALID: def(
    40325,
    403,
    '临时消息的目标用户 {user_id} 不在服务器中',
    'The temporary message target user {user_id} is not in the server',
  ),
  DELIVERY_UPSTREAM_REJECTED: def(
    40326,
    403,
    '转发目标拒绝了消息（HTTP {status}，错误码 {upstream_code}）：{detail}',
    'The relay target refused the message (HTTP {status}, code {upstream_code}): {detail}',
  ),

  // 404 / 405: nothing there.
  ROUTE_NOT_FOUND: def(40400, 404, '接口不存在', 'No such endpoint'),
  NOT_FOUND: def(40401, 404, '{resource}不存在', '{resource} not found'),
  METHOD_NOT_ALLOWED: def(
    40500,
    405,
    '该接口不支持 {method} 方法',
    'Method {method} is not allowed on this endpoint',
  ),

  // 409, 413, 415
  CONFLICT: def(40900, 409, '请求冲突：{detail}', 'Conflict: {detail}'),
  // 40910-40919: inbound pipes.
  IDEMPOTENCY_KEY_REUSED: def(
    40910,
    409,
    '该 Idempotency-Key 已用于另一个请求体',
    'This Idempotency-Key was already used with a different body',
  ),
  IDEMPOTENCY_KEY_IN_PROGRESS: def(
    40911,
    409,
    '使用该 Idempotency-Key 的请求正在处理中，请稍后重试',
    'A request with this Idempotency-Key is being processed; retry shortly',
  ),
  // Verified pipe senders (issue 20): a signing secret cannot be set as asked.
  PIPE_SECRETS_KEY_MISSING: def(
    40912,
    409,
    '签名方式 {scheme} 的密钥须加密保存，但未配置 SECRETS_KEY：请设置（openssl rand -hex 32）并重启',
    'Signature scheme {scheme} keeps its secret encrypted and SECRETS_KEY is not set: set it (openssl rand -hex 32) and restart',
  ),
  PIPE_NOT_SIGNED: def(
    40913,
    409,
    '管道 {pipe_id} 未设置签名方式，请先用 pipe/set-signature 设置',
    'Pipe {pipe_id} has no signature scheme; set one with pipe/set-signature',
  ),
  SECRETS_KEY_MISSING: def(
    40914,
    409,
    '未配置 SECRETS_KEY，无法重新加密签名密钥：请设置（openssl rand -hex 32），把旧密钥放进 SECRETS_KEYS_PREVIOUS 并重启',
    'SECRETS_KEY is not set, so no secret can be sealed anew: set it (openssl rand -hex 32), list the old key in SECRETS_KEYS_PREVIOUS and restart',
  ),
  // 40902-40909: platform directory (issue 5).
  MEMBER_EXISTS: def(
    40902,
    409,
    '用户 {user_id} 已是该服务器的成员',
    'User {user_id} is already a member of this guild',
  ),
  // 40920-40929: pipe message delivery (issue 6).
  DELIVERY_NOT_DEAD: def(
    40920,
    409,
    '消息 {msg_id} 未处于失败状态（当前 {status}），不能重发',
    'Message {msg_id} is not failed (status {status}); only failed messages can be replayed',
  ),
  DELIVERY_REPLAY_EXPIRED: def(
    40921,
    409,
    '消息 {msg_id} 的重发数据已过期',
    'The replay input of message {msg_id} has expired',
  ),
  // 40930-40939: a test message from the back office (pipe/send-test); the pipe's state prevents it.
  PIPE_TEST_PIPE_DISABLED: def(
    40930,
    409,
    '管道 {pipe_id} 已停用，启用后才能发送测试消息',
    'Pipe {pipe_id} is disabled; enable it to send a test message',
  ),
  PIPE_TEST_BOT_DISABLED: def(
    40931,
    409,
    '管道 {pipe_id} 的机器人 {bot_id} 已停用，启用后才能发送测试消息',
    'The bot {bot_id} of pipe {pipe_id} is disabled; enable it to send a test message',
  ),
  PIPE_TEST_NO_TEST_DATA: def(
    40932,
    409,
    '管道 {pipe_id} 绑定的模板 {template_id} 没有测试数据（test_data），请先为模板设置测试数据',
    "Template {template_id} of pipe {pipe_id} has no test_data; set the template's test_data first",
  ),
  // The studio's test message (template/send-test): the bot's state prevents it.
  TEMPLATE_TEST_BOT_DISABLED: def(
    40933,
    409,
    '机器人 {bot_id} 已停用，启用后才能发送测试消息',
    'The bot {bot_id} is disabled; enable it to send a test message',
  ),
  REQUEST_TIMEOUT: def(40800, 408, '请求未能及时完整送达', 'The request did not arrive in time'),
  BODY_TOO_LARGE: def(41300, 413, '请求体过大，最多 {limit}', 'Request body too large, at most {limit}'),
  CHUNK_EXTENSIONS_TOO_LARGE: def(
    41301,
    413,
    '请求体的分块扩展过大',
    'The chunk extensions of the request body are too large',
  ),
  UNSUPPORTED_MEDIA_TYPE: def(
    41500,
    415,
    '请求体必须是 JSON（Content-Type: application/json）',
    'Request body must be JSON (Content-Type: application/json)',
  ),
  UNSUPPORTED_CONTENT_ENCODING: def(
    41501,
    415,
    '不支持内容编码 "{encoding}"（Content-Encoding），支持的编码：{supported}',
    'Content encoding "{encoding}" is not supported (Content-Encoding); supported: {supported}',
  ),

  // 431
  HEADERS_TOO_LARGE: def(
    43100,
    431,
    '请求头过大，最多 {limit}',
    'Request headers too large, at most {limit}',
  ),

  // 429
  RATE_LIMITED: def(
    42900,
    429,
    '请求过于频繁，请 {retry_after} 秒后重试',
    'Too many requests, retry in {retry_after} s',
  ),
  SIGN_IN_THROTTLED: def(
    42901,
    429,
    '登录失败次数过多，请 {retry_after} 秒后重试',
    'Too many failed sign-ins; try again in {retry_after} s',
  ),

  // 42920-42929: pipe message delivery (issue 6); recorded on messages, never an HTTP answer.
  DELIVERY_UPSTREAM_RATE_LIMITED: def(
    42920,
    429,
    '转发目标持续限速，消息入队 {patience_s} 秒后仍无法发送',
    'The relay target kept rate-limiting the message; still refused {patience_s} s after it was queued',
  ),

  // 5xx: never the internal detail; the error id is in the log.
  INTERNAL: def(
    50000,
    500,
    '服务器内部错误（错误编号 {error_id}）',
    'Internal server error (error id {error_id})',
  ),
  // 50001-50009: pipe message delivery (issue 6); recorded on messages, never an HTTP answer.
  DELIVERY_UPSTREAM_UNAVAILABLE: def(
    50001,
    502,
    '转发目标不可用：{detail}',
    'The relay target is unavailable: {detail}',
  ),
  DELIVERY_STALLED: def(
    50002,
    500,
    '处理该消息的进程多次中断',
    'The processes handling this message stopped too many times',
  ),
  DELIVERY_IN_DOUBT: def(
    50004,
    500,
    '转发目标可能已收到该消息，但未能记录其答复：{detail}；按 DELIVERY_IN_DOUBT=hold 不再重发，请确认频道后再决定是否重放',
    'The relay target may have this message, but its answer was not kept: {detail}; not sent again (DELIVERY_IN_DOUBT=hold): check the channel before replaying it',
  ),
  DELIVERY_INTERNAL: def(
    50003,
    500,
    '投递时发生内部错误（错误编号 {error_id}）',
    'Internal error while delivering (error id {error_id})',
  ),
  DEPENDENCY_DOWN: def(
    50300,
    503,
    '服务暂时不可用，请稍后重试（错误编号 {error_id}）',
    'Service temporarily unavailable, retry later (error id {error_id})',
  ),
  // A signed pipe's secret cannot be decrypted: SECRETS_KEY is unset or not the key it was sealed with.
  SIGNING_SECRET_UNREADABLE: def(
    50302,
    503,
    '无法解密管道的签名密钥：SECRETS_KEY 未配置或已更换（错误编号 {error_id}）',
    "The pipe's signing secret cannot be decrypted: SECRETS_KEY is unset or changed (error id {error_id})",
  ),
  CONSOLE_NOT_BUILT: def(
    50301,
    503,
    '控制台尚未构建：请先运行 npm run build（错误编号 {error_id}）',
    'The console is not built: run `npm run build` first (error id {error_id})',
  ),
} as const satisfies Record<string, ErrorDef>;

export type ErrorKey = keyof typeof CATALOGUE;

/** A delivery failure's reason: the catalogue entry it is recorded with, and whether a retry may cure it. */
export interface ReasonDef {
  readonly key: ErrorKey;
  readonly retryable: boolean;
}

const reason = (key: ErrorKey, retryable: boolean): ReasonDef => ({ key, retryable });

/**
 * Reason codes recorded on a failed (or retried) pipe message: stable strings, listed in
 * docs/delivery.md. A render failure records the render error's own catalogue key as its reason
 * (TEMPLATE_COMPILE, TEMPLATE_RENDER, TEMPLATE_LIMIT, TEMPLATE_FEATURE_UNAVAILABLE, CARD_SYNTAX,
 * CARD_INVALID, MESSAGE_TOO_LONG), with its numeric code and where in `detail`: line, column
 * and excerpt (of the template, or for CARD_SYNTAX and CARD_INVALID of the rendered card text);
 * for CARD_INVALID also the path of the offending value and the rule it breaks. Such keys are not
 * listed here: an error of status 4xx is never retried, and one of 5xx is.
 */
export const DELIVERY_REASONS = {
  /** The pipe was disabled after the message was accepted. */
  PIPE_DISABLED: reason('DELIVERY_PIPE_UNAVAILABLE', false),
  /** The pipe was deleted after the message was accepted. */
  PIPE_DELETED: reason('DELIVERY_PIPE_UNAVAILABLE', false),
  /** The bot was disabled or deleted after acceptance. */
  BOT_UNAVAILABLE: reason('DELIVERY_BOT_UNAVAILABLE', false),
  /** The pipe's template was deleted. */
  TEMPLATE_DELETED: reason('TEMPLATE_DELETED', false),
  /** The pipe's template is banned. */
  TEMPLATE_BANNED: reason('TEMPLATE_BANNED', false),
  /**
   * The message's `type` disagrees with the format of its template (the template's msgtype was
   * changed after the message was accepted; the door refuses the rest).
   */
  TYPE_MISMATCH: reason('TEMPLATE_TYPE_MISMATCH', false),
  /** The target channel no longer exists. */
  CHANNEL_NOT_FOUND: reason('DELIVERY_TARGET_INVALID', false),
  /** The target is not a text channel of the pipe's server. */
  CHANNEL_NOT_TEXT: reason('DELIVERY_TARGET_INVALID', false),
  /** The bot lacks view-channel in the target channel. */
  NO_VIEW_PERMISSION: reason('DELIVERY_NO_PERMISSION', false),
  /** The bot lacks send-messages in the target channel. */
  NO_SEND_PERMISSION: reason('DELIVERY_NO_PERMISSION', false),
  /** The temporary message's target user is not a member of the server. */
  TEMP_TARGET_NOT_MEMBER: reason('DELIVERY_TEMP_TARGET_INVALID', false),
  /** A pipe without template got input that is not message text. */
  INPUT_INVALID: reason('DELIVERY_INPUT_INVALID', false),
  /** The bot's sink is relay but it has no relay URL or token. */
  RELAY_NOT_CONFIGURED: reason('DELIVERY_UPSTREAM_REJECTED', false),
  /** The relay target answered a 4xx other than 429. */
  UPSTREAM_REJECTED: reason('DELIVERY_UPSTREAM_REJECTED', false),
  /**
   * The relay target still answered 429 RELAY_RATE_LIMIT_PATIENCE_MS after the message was
   * queued (429s spend no attempt; this bounds them).
   */
  UPSTREAM_RATE_LIMITED: reason('DELIVERY_UPSTREAM_RATE_LIMITED', false),
  /** The relay target answered 5xx (retried until the attempts ran out). */
  UPSTREAM_UNAVAILABLE: reason('DELIVERY_UPSTREAM_UNAVAILABLE', true),
  /** The relay target did not answer within RELAY_TIMEOUT_MS (retried). */
  UPSTREAM_TIMEOUT: reason('DELIVERY_UPSTREAM_UNAVAILABLE', true),
  /** The relay target refused or dropped the connection (retried). */
  UPSTREAM_UNREACHABLE: reason('DELIVERY_UPSTREAM_UNAVAILABLE', true),
  /** The database or Redis did not answer (retried). */
  DEPENDENCY_DOWN: reason('DEPENDENCY_DOWN', true),
  /** Worker processes died while holding the message more than MAX_STALLED_COUNT times. */
  STALLED: reason('DELIVERY_STALLED', false),
  /**
   * With DELIVERY_IN_DOUBT=hold: the relay was asked and no answer was kept (its worker died
   * mid-request, or the relay did not answer within RELAY_TIMEOUT_MS). Not retried: the relay
   * may have the message, and a second request would repeat it.
   */
  IN_DOUBT: reason('DELIVERY_IN_DOUBT', false),
  /**
   * An unexpected error (a bug); retried, then recorded with a generic message and an error id
   * (the error itself is in the worker's log under that id).
   */
  INTERNAL: reason('DELIVERY_INTERNAL', true),
} as const satisfies Record<string, ReasonDef>;

export type ReasonCode = keyof typeof DELIVERY_REASONS;

/** The success message every successful envelope carries. */
export const SUCCESS_MESSAGE: Readonly<Record<Lang, string>> = { 'zh-CN': '操作成功', 'en-US': 'Success' };

/** A parameter that reads differently per language (e.g. a validation rule). */
export type LocalizedText = Readonly<Record<Lang, string>>;
/** A text in both languages, Chinese first as in the catalogue. */
export const localized = (zh: string, en: string): LocalizedText => ({ 'zh-CN': zh, 'en-US': en });
export type ParamValue = string | number | LocalizedText;

/** The clause a 5xx's message names its error id in, in each language. */
const ERROR_ID_CLAUSE: Readonly<Record<Lang, RegExp>> = {
  'zh-CN': /（错误编号 \{error_id\}）$/,
  'en-US': / \(error id \{error_id\}\)$/,
};

/**
 * An entry's message in `lang`, filled from `params`. Without an `error_id` the clause that
 * names it is left out: a 5xx's error id is given when it is answered, and a message worded
 * before (a log line, a delivery record) has none to show.
 */
export function catalogueMessage(
  key: ErrorKey,
  params: Readonly<Record<string, ParamValue>>,
  lang: Lang,
): string {
  const text = CATALOGUE[key].message[lang];
  return formatMessage(
    params.error_id === undefined ? text.replace(ERROR_ID_CLAUSE[lang], '') : text,
    params,
    lang,
  );
}

/** Fills `{name}` placeholders; unknown names are left as written so a missing param is visible. */
export function formatMessage(
  template: string,
  params: Readonly<Record<string, ParamValue>>,
  lang: Lang,
): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (!Object.hasOwn(params, name)) return whole;
    const value = params[name] as ParamValue;
    return typeof value === 'object' ? value[lang] : String(value);
  });
}
