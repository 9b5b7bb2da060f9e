import { describe, expect, it } from 'vitest';
import { convertCard } from '../../../src/render/cards/index.js';
import { NOW } from './helpers.js';

const commits = [
  {
    id: 'a1',
    author: 'Alice',
    message: 'Fix "quoted" bug\nsecond line',
    url: 'https://git.example/c/a1',
    timestamp: '2024-05-01T10:00:00Z',
  },
  {
    id: 'b2',
    author: 'Bob',
    message: 'Add \\ backslash',
    url: 'https://git.example/c/b2',
    timestamp: '2024-05-01T11:00:00Z',
  },
];

/**
 * What the GitLab push template of platform facts renders to: one card, a section saying who
 * pushed how many commits where, then per commit a divider and a kmarkdown section, with a comma
 * after every commit but the last. `json` stands in for the `json_escape` filter.
 */
function renderedPushCard(): string {
  const json = (text: string) => JSON.stringify(text).slice(1, -1);
  const parts = commits.map(
    (commit) => `{"type": "divider"},
      {"type": "section", "text": {"type": "kmarkdown",
        "content": "**${json(commit.author)}** [${json(commit.message)}](${commit.url})\\n${commit.timestamp}"}}`,
  );
  return `[
  {
    "type": "card",
    "theme": "secondary",
    "size": "lg",
    "modules": [
      {"type": "section", "text": {"type": "kmarkdown", "content": "**Alice** pushed ${commits.length} commits to [herald](https://git.example/herald)"}},
      ${parts.join(',\n      ')}
    ]
  }
]`;
}

describe('GitLab push card', () => {
  it('converts and validates', () => {
    const message = convertCard(renderedPushCard(), 'json', NOW);
    expect(message).toHaveLength(1);
    const modules = message[0]?.modules ?? [];
    expect(modules.map((m) => m.type)).toEqual(['section', 'divider', 'section', 'divider', 'section']);
    expect(modules[2]).toEqual({
      type: 'section',
      text: {
        type: 'kmarkdown',
        content: '**Alice** [Fix "quoted" bug\nsecond line](https://git.example/c/a1)\n2024-05-01T10:00:00Z',
      },
    });
  });

  it('gives the same card written as XML', () => {
    const xml = `<card theme="secondary" size="lg">
  <section><text type="kmarkdown">**Alice** pushed 2 commits to [herald](https://git.example/herald)</text></section>
  <divider/>
  <section><text type="kmarkdown">**Alice** [Fix "quoted" bug
second line](https://git.example/c/a1)
2024-05-01T10:00:00Z</text></section>
  <divider/>
  <section><text type="kmarkdown">**Bob** [Add \\ backslash](https://git.example/c/b2)
2024-05-01T11:00:00Z</text></section>
</card>`;
    expect(convertCard(xml, 'xml', NOW)).toEqual(convertCard(renderedPushCard(), 'json', NOW));
  });

  it('reports a missing comma between commits with its position', () => {
    const broken = renderedPushCard().replace(
      '}},\n      {"type": "divider"}',
      '}}\n      {"type": "divider"}',
    );
    expect(() => convertCard(broken, 'json', NOW)).toThrow(
      "Card message cannot be parsed (json): line 8, column 7: Expected ',' or ']' after array element",
    );
  });
});
