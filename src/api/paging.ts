import { ValidationError } from '../errors/index.js';
import type { PageRequest } from '../store/index.js';

/** The platform's list limits: page_size defaults to 50 and may not exceed it. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 50;
/** Pages past this are refused: skipping millions of documents is a cost, not a use case. */
const MAX_PAGE = 100_000;

type Query = Readonly<Record<string, string | string[] | undefined>>;

function positiveInt(query: Query, name: string, fallback: number, max: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new ValidationError(name, {
      'zh-CN': `必须是 1 到 ${max} 之间的整数`,
      'en-US': `must be an integer from 1 to ${max}`,
    });
  }
  return Number(raw);
}

export interface ParsedPage {
  readonly request: PageRequest;
  /** What the response's `sort` echoes: `[]` when none was asked for (as the platform answers). */
  readonly sortEcho: Record<string, 1 | -1> | [];
}

/** page, page_size and sort (`field` or `-field`, one of `fields`) from a query string. */
export function parsePage(query: Query, fields: readonly string[], defaultSort: string): ParsedPage {
  const page = positiveInt(query, 'page', 1, MAX_PAGE);
  const pageSize = positiveInt(query, 'page_size', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const rawSort = query.sort;
  if (rawSort !== undefined && (typeof rawSort !== 'string' || !fields.includes(rawSort.replace(/^-/, '')))) {
    const allowed = fields.flatMap((f) => [f, `-${f}`]).join(', ');
    throw new ValidationError('sort', {
      'zh-CN': `必须是以下值之一：${allowed}`,
      'en-US': `must be one of ${allowed}`,
    });
  }
  const sort = rawSort ?? defaultSort;
  const field = sort.replace(/^-/, '');
  const dir: 1 | -1 = sort.startsWith('-') ? -1 : 1;
  return {
    request: { page, pageSize, sort: { field, dir } },
    sortEcho: rawSort === undefined ? [] : { [field]: dir },
  };
}

export function pageMeta(req: PageRequest, total: number) {
  return { page: req.page, page_total: Math.ceil(total / req.pageSize), page_size: req.pageSize, total };
}
