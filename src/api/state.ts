import type { Lang } from '../errors/index.js';
import type { BotRecord } from '../store/index.js';

/** What middleware leaves on ctx.state for later middleware and handlers. */
export interface HeraldState {
  lang: Lang;
  requestId: string;
  /** Set by error handling for 5xx answers; the same id is in the log line. */
  errorId?: string;
  /** Set by bot authentication. */
  bot?: BotRecord;
  /** Set by requireStudio: whose templates the caller may see (botId null: an operator, every bot's). */
  studio?: { readonly botId: string | null; readonly bot: BotRecord | null };
}
