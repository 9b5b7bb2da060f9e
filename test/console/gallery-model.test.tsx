import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type GalleryItem,
  groupBySender,
  matchesSearch,
  pickSample,
  renderBody,
  senderLabel,
  useBody,
} from '../../console/src/gallery-model.ts';
import { type Lang, lang } from '../../console/src/i18n.ts';

let saved: Lang;
beforeEach(() => {
  saved = lang.value;
  lang.value = 'en-US';
});
afterEach(() => {
  lang.value = saved;
});

const item = (id: string, sender: string, title: string, extra: Partial<GalleryItem> = {}): GalleryItem => ({
  id,
  title,
  sender,
  event: id.split('-').slice(1).join('-'),
  msgtype: 2,
  description: '',
  samples: [{ id: 's1', title: 'Sample' }],
  ...extra,
});

const ITEMS: GalleryItem[] = [
  item('generic-ci', 'generic', 'CI build'),
  item('sentry-issue', 'sentry', 'Sentry issue alert'),
  item('gitlab-push', 'gitlab', 'GitLab push'),
  item('github-push', 'github', 'GitHub push', { description: 'Commits pushed to a branch' }),
  item('alertmanager-firing', 'alertmanager', 'Alerts firing or resolved', { event: 'alerts' }),
  item('github-release', 'github', 'GitHub release'),
  item('custom-thing', 'acme', 'Acme event'),
  item('grafana-alert', 'grafana', 'Grafana alerting'),
];

describe('gallery grouping', () => {
  it('groups by sender in a fixed order, unknown senders last, items in the server’s order', () => {
    const groups = groupBySender(ITEMS);
    expect(groups.map((g) => g.sender)).toEqual([
      'github',
      'gitlab',
      'alertmanager',
      'grafana',
      'sentry',
      'generic',
      'acme',
    ]);
    expect(groups[0]!.items.map((i) => i.id)).toEqual(['github-push', 'github-release']);
    expect(groups.map((g) => g.label)).toEqual([
      'GitHub',
      'GitLab',
      'Prometheus Alertmanager',
      'Grafana',
      'Sentry',
      'Generic / CI',
      'acme',
    ]);
  });

  it('keeps only matching items and drops groups left empty', () => {
    expect(groupBySender(ITEMS, 'push').map((g) => [g.sender, g.items.map((i) => i.id)])).toEqual([
      ['github', ['github-push']],
      ['gitlab', ['gitlab-push']],
    ]);
    expect(groupBySender(ITEMS, 'nothing like this')).toEqual([]);
  });

  it('searches every word in any case over title, event, description, id and sender name', () => {
    const push = ITEMS[3]!;
    expect(matchesSearch(push, '')).toBe(true);
    expect(matchesSearch(push, '  GITHUB   branch ')).toBe(true);
    expect(matchesSearch(push, 'github release')).toBe(false);
    expect(matchesSearch(ITEMS[4]!, 'prometheus')).toBe(true);
    expect(matchesSearch(ITEMS[0]!, 'ci')).toBe(true);
  });

  it('names senders in Chinese too', () => {
    lang.value = 'zh-CN';
    expect(senderLabel('generic')).toBe('通用 / CI');
    expect(senderLabel('github')).toBe('GitHub');
  });
});

describe('a gallery item', () => {
  const tpl = {
    content: '{{ data.ref }}',
    msgtype: 1,
    samples: [
      { id: 'a', title: 'A', data: '{"ref":"main"}', source: 'x' },
      { id: 'b', title: 'B', data: '{"ref":"dev"}', source: 'y' },
    ],
  };

  it('opens on the sample asked for, else the first', () => {
    expect(pickSample(tpl, 'b')?.id).toBe('b');
    expect(pickSample(tpl, 'gone')?.id).toBe('a');
    expect(pickSample(tpl, null)?.id).toBe('a');
    expect(pickSample({ samples: [] }, null)).toBeUndefined();
  });

  it('renders the template over the chosen sample for the chosen bot', () => {
    expect(renderBody(tpl, '17', tpl.samples[1])).toEqual({
      bot_id: '17',
      content: '{{ data.ref }}',
      msgtype: 1,
      data: '{"ref":"dev"}',
    });
    expect(renderBody(tpl, '17', undefined)).not.toHaveProperty('data');
  });

  it('uses the template with the sample as test data', () => {
    expect(useBody('github-push', '17', 'b')).toEqual({ id: 'github-push', bot_id: '17', sample_id: 'b' });
    expect(useBody('github-push', '17', undefined)).toEqual({ id: 'github-push', bot_id: '17' });
  });
});
