import type Router from '@koa/router';
import type { Deps } from '../../domain/deps.js';
import {
  type GalleryTemplate,
  getGalleryTemplate,
  listGallery,
  useGalleryTemplate,
} from '../../domain/gallery/index.js';
import { MAX_TITLE_LENGTH } from '../../domain/templates/index.js';
import type { HeraldError, Lang } from '../../errors/index.js';
import { requireAdmin } from '../auth.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';
import { templateView } from './templates.js';

/*
 * The template gallery (docs/templates.md, "Gallery"): ready templates for common senders with
 * sample payloads, and "use this template", which copies one into a bot's templates with a
 * sample as its test_data. Titles, descriptions and sample titles come in the caller's
 * language. Operators only for now (the contract's requireStudio replaces requireAdmin later).
 */

const galleryId = { type: 'string', minLength: 1, maxLength: 64 } as const;

const viewQuery = compileValidator<{ id: string }>({
  type: 'object',
  properties: { id: galleryId },
  required: ['id'],
});
const useBody = compileValidator<{ id: string; bot_id: string; sample_id?: string; title?: string }>({
  type: 'object',
  properties: {
    id: galleryId,
    bot_id: idSchema,
    sample_id: galleryId,
    title: { type: 'string', minLength: 1, maxLength: MAX_TITLE_LENGTH },
  },
  required: ['id', 'bot_id'],
});

/** GalleryItem: what the gallery list shows. */
const item = (t: GalleryTemplate, lang: Lang) => ({
  id: t.id,
  title: t.title[lang],
  sender: t.sender,
  event: t.event,
  msgtype: t.msgtype,
  description: t.description[lang],
  samples: t.samples.map((s) => ({ id: s.id, title: s.title[lang] })),
});

/** GalleryTemplate: the item with the template text and every sample's data and source. */
const detail = (t: GalleryTemplate, lang: Lang) => ({
  ...item(t, lang),
  content: t.content,
  samples: t.samples.map((s) => ({ id: s.id, title: s.title[lang], data: s.data, source: s.source })),
});

const warning = (err: HeraldError, lang: Lang) => ({
  ...(err.data ?? {}),
  code: err.code,
  message: err.localizedMessage(lang),
});

export function adminGalleryRoutes(router: Router<HeraldState>, deps: Deps): void {
  const admin = requireAdmin(deps);

  router.get('/admin/api/gallery/list', admin, async (ctx) => {
    reply(ctx, { items: (await listGallery()).map((t) => item(t, ctx.state.lang)) });
  });

  router.get('/admin/api/gallery/view', admin, async (ctx) => {
    const { id } = viewQuery(ctx.query);
    reply(ctx, { template: detail(await getGalleryTemplate(id), ctx.state.lang) });
  });

  router.post('/admin/api/gallery/use', admin, async (ctx) => {
    const body = useBody(ctx.request.body);
    const lang = ctx.state.lang;
    const saved = await useGalleryTemplate(deps, {
      id: body.id,
      botId: body.bot_id,
      sampleId: body.sample_id,
      title: body.title,
      lang,
    });
    reply(ctx, {
      model: { ...templateView(saved.model), bot_id: saved.model.bot_id },
      warnings: saved.warnings.map((w) => warning(w, lang)),
    });
  });
}
