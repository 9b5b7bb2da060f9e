import { ApiError } from './api.ts';
import { lang } from './i18n.ts';

/**
 * A call to the bot API (`/api/v3/*`) as a bot, with `Authorization: Bot <token>`. The guided
 * first pipe uses it to create the bot's starter template right after creating the bot (templates
 * belong to a bot and the admin API only reads them). The token is passed in from memory and
 * sent only in this header: never in a URL, a log or browser storage.
 */
export async function botPost<T>(token: string, path: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: {
        Authorization: `Bot ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'Accept-Language': lang.value,
      },
      body: JSON.stringify(body),
      // The console's cookie is not what authorizes this call.
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, -1, lang.value === 'zh-CN' ? '无法连接到服务器' : 'Cannot reach the server');
  }
  let envelope: { code?: number; message?: string; data?: unknown } = {};
  try {
    envelope = await res.json();
  } catch {
    // Not JSON (a proxy's page): reported by status below.
  }
  if (res.ok && envelope.code === 0) return envelope.data as T;
  throw new ApiError(res.status, envelope.code ?? -1, envelope.message ?? res.statusText, envelope.data);
}
