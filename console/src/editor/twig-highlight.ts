import { type Extension, RangeSetBuilder } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate } from '@codemirror/view';
import { scanTwig, type TwigTokenKind } from './twig-scan.ts';

/*
 * The Twig layer: marks every `{{ }}`, `{% %}` and `{# #}` region and the tokens inside it with
 * `cm-twig-*` classes, drawn over the message format's own colours (the base language parses the
 * whole text, Twig included, and colours what it recognises; inside a region these colours win).
 */

const region = Decoration.mark({ class: 'cm-twig-region' });
const tokenMarks = new Map<TwigTokenKind, Decoration>();
const markOf = (kind: TwigTokenKind): Decoration => {
  let mark = tokenMarks.get(kind);
  if (!mark) {
    mark = Decoration.mark({ class: `cm-twig-${kind}` });
    tokenMarks.set(kind, mark);
  }
  return mark;
};

function decorate(view: EditorView): DecorationSet {
  const text = view.state.doc.toString();
  const { regions, tokens } = scanTwig(text);
  const { from: viewFrom, to: viewTo } = view.viewport;
  const builder = new RangeSetBuilder<Decoration>();
  let t = 0;
  for (const r of regions) {
    // Tokens of a region start at or after its opener and end by its end.
    while (t < tokens.length && tokens[t]!.from < r.from) t++;
    if (r.to < viewFrom) continue;
    if (r.from > viewTo) break;
    if (r.to > r.from) builder.add(r.from, r.to, region);
    for (; t < tokens.length && tokens[t]!.from < r.to; t++) {
      const tok = tokens[t]!;
      if (tok.to > tok.from && tok.to >= viewFrom && tok.from <= viewTo)
        builder.add(tok.from, tok.to, markOf(tok.kind));
    }
  }
  return builder.finish();
}

const highlighter = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = decorate(view);
    }
    update(u: ViewUpdate) {
      if (u.docChanged || u.viewportChanged) this.decorations = decorate(u.view);
    }
  },
  { decorations: (v) => v.decorations },
);

/** Colours chosen for at least 4.5:1 contrast on the editor's white. */
const colours = EditorView.baseTheme({
  '.cm-twig-region': { backgroundColor: 'rgba(124, 58, 237, 0.06)' },
  '.cm-twig-delimiter, .cm-twig-delimiter *': { color: '#6d28d9', fontWeight: '600' },
  '.cm-twig-tag, .cm-twig-tag *, .cm-twig-keyword, .cm-twig-keyword *': {
    color: '#6d28d9',
    fontWeight: '600',
  },
  '.cm-twig-filter, .cm-twig-filter *, .cm-twig-test, .cm-twig-test *, .cm-twig-function, .cm-twig-function *':
    {
      color: '#0e7490',
    },
  '.cm-twig-string, .cm-twig-string *': { color: '#a16207' },
  '.cm-twig-number, .cm-twig-number *, .cm-twig-atom, .cm-twig-atom *': { color: '#15803d' },
  '.cm-twig-variable, .cm-twig-variable *': { color: '#1d4ed8' },
  '.cm-twig-property, .cm-twig-property *': { color: '#1e40af' },
  '.cm-twig-operator, .cm-twig-operator *, .cm-twig-punctuation, .cm-twig-punctuation *': {
    color: '#4b5563',
  },
  '.cm-twig-comment, .cm-twig-comment *': { color: '#6b7280', fontStyle: 'italic' },
});

/** Twig highlighting over whatever language the editor has. */
export const twigHighlight: Extension = [highlighter, colours];
