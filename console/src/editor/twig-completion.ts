import {
  autocompletion,
  type Completion as CmCompletion,
  type CompletionContext,
  type CompletionResult,
  pickedCompletion,
} from '@codemirror/autocomplete';
import { type Extension, Facet } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import { type Candidate, completionAt } from './twig-candidates.ts';

/** The parsed test data that `data.` completes from (the last one given wins). */
export const completionData = Facet.define<unknown, unknown>({ combine: (values) => values.at(-1) });

function toCompletion(c: Candidate): CmCompletion {
  const out: CmCompletion = { label: c.label, type: c.type, detail: c.detail, info: c.info, boost: c.boost };
  const replaceFrom = c.replaceFrom;
  const insert = c.apply;
  if (insert !== undefined && replaceFrom !== undefined) {
    // `.key` cannot name this key: replace the dot too, with `['key']`.
    out.apply = (view: EditorView, completion: CmCompletion, _from: number, to: number) => {
      view.dispatch({
        changes: { from: replaceFrom, to, insert },
        selection: { anchor: replaceFrom + insert.length },
        annotations: pickedCompletion.of(completion),
        userEvent: 'input.complete',
      });
    };
  } else if (insert !== undefined) {
    out.apply = insert;
  }
  return out;
}

export function twigCompletionSource(ctx: CompletionContext): CompletionResult | null {
  const result = completionAt(
    ctx.state.doc.toString(),
    ctx.pos,
    ctx.state.facet(completionData),
    ctx.explicit,
  );
  if (!result) return null;
  return { from: result.from, options: result.options.map(toCompletion), validFor: /^[A-Za-z0-9_]*$/ };
}

/** Completion of Twig names only: the base languages' own sources (HTML tags in Markdown...) are left out. */
export const twigCompletion: Extension = autocompletion({ override: [twigCompletionSource] });
