import type Router from '@koa/router';
import type { Deps } from '../../domain/deps.js';
import {
  type GalleryTemplate,
  getGalleryTemplate,
  listGallery,
  useGalleryTemplate,
} from '../../domain/gallery/index.js';
import { MAX_TITLE_LENGTH } from '../../domain/templates/index.js';
import type { Lang } from '../../errors/index.js';
import { requireStudio, studioScope } from '../auth.js';
import { reply } from '../reply.js';
import type { HeraldState } from '../state.js';
import { compileValidator, idSchema } from '../validation.js';
import { saved, templateView } from './templates.js';

/*
 * The template gallery (docs/templates.md, "Gallery"): ready templates for common senders with
 * sample payloads, and "use this template", which copies one into a bot's templates with a
 * sample as its test_data. Titles, descriptions and sample titles come in the caller's
 * language. Operators and bot developers' studio sessions (who use it for their own bot).
 */

const galleryId = { type: 'string', minLength: 1, maxLength: 64 } as const;

const viewQuery = compileValidator<{ id: string }>({
  type: 'object',
  properties: { id: galleryId },
  required: ['id'],
});
const useBody = compileValidator<{ id: string; bot_id?: string; sample_id?: string; title?: string }>({
  type: 'object',
  properties: {
    id: galleryId,
    bot_id: idSchema,
    sample_id: galleryId,
    title: { type: 'string', minLength: 1, maxLength: MAX_TITLE_LENGTH },
  },
  required: ['id'],
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

export function adminGalleryRoutes(router: Router<HeraldState>, deps: Deps): void {
  const studio = requireStudio(deps);

  router.get('/admin/api/gallery/list', studio, async (ctx) => {
    reply(ctx, { items: (await listGallery()).map((t) => item(t, ctx.state.lang)) });
  });

  router.get('/admin/api/gallery/view', studio, async (ctx) => {
    const { id } = viewQuery(ctx.query);
    reply(ctx, { template: detail(await getGalleryTemplate(id), ctx.state.lang) });
  });

  // A copy is a new template (and a test render): a bot session's take its create budget.
  router.post('/admin/api/gallery/use', requireStudio(deps, 'template/create'), async (ctx) => {
    const body = useBody(ctx.request.body);
    const lang = ctx.state.lang;
    const made = await useGalleryTemplate(deps, studioScope(ctx.state), {
      id: body.id,
      botId: body.bot_id,
      sampleId: body.sample_id,
      title: body.title,
      lang,
    });
    reply(
      ctx,
      saved(made, lang, (t) => ({ ...templateView(t), bot_id: t.bot_id })),
    );
  });
}
