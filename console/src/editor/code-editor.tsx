import { Annotation, Compartment, EditorState, type Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';
import { isTemplateLanguage, loadBaseLanguage } from './base-language.ts';
import { Echoes } from './echoes.ts';
import { lintMarkers, markersTransaction } from './lint-markers.ts';
import { basics } from './setup.ts';
import { textChange } from './text-change.ts';
import { editorTheme } from './theme.ts';
import { completionData, twigCompletion } from './twig-completion.ts';
import { twigHighlight } from './twig-highlight.ts';
import type { CodeEditorProps, EditorLanguage } from './types.ts';

/** Marks a change made from the props (not typed), which must not be reported back through onChange. */
const fromProps = Annotation.define<boolean>();

const twigLayer = (language: EditorLanguage): Extension =>
  isTemplateLanguage(language) ? [twigHighlight, twigCompletion] : [];

const readOnlyState = (readOnly: boolean): Extension =>
  readOnly
    ? [
        EditorState.readOnly.of(true),
        EditorView.contentAttributes.of({ 'aria-readonly': 'true' }),
        EditorView.editorAttributes.of({ 'data-readonly': '' }),
      ]
    : [];

/**
 * A CodeMirror 6 editor as a Preact component: controlled by `value` and `onChange`, with the
 * language, markers, completion data and read-only state following their props.
 *
 * The editor is mounted in an open shadow root of its host element. CodeMirror injects its
 * styles at run time; into a document it writes a `<style>` element, which the console's CSP
 * (`style-src 'self'`, no 'unsafe-inline') refuses, leaving the editor unstyled. Into a shadow
 * root it adopts a constructed stylesheet instead, which CSP does not govern (docs/console.md,
 * "The template editor and the CSP").
 */
export function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const echoes = useRef(new Echoes());
  const parts = useRef({
    language: new Compartment(),
    twig: new Compartment(),
    data: new Compartment(),
    readOnly: new Compartment(),
    label: new Compartment(),
  });

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const root = el.shadowRoot ?? el.attachShadow({ mode: 'open' });
    const parent = document.createElement('div');
    root.append(parent);
    const p = parts.current;
    const initial = latest.current;
    const v = new EditorView({
      root,
      parent,
      state: EditorState.create({
        doc: initial.value,
        extensions: [
          basics,
          editorTheme,
          lintMarkers,
          p.language.of([]),
          p.twig.of(twigLayer(initial.language)),
          p.data.of(completionData.of(initial.completionData)),
          p.readOnly.of(readOnlyState(initial.readOnly === true)),
          p.label.of(EditorView.contentAttributes.of({ 'aria-label': initial.label })),
          EditorView.updateListener.of((u) => {
            if (u.docChanged && !u.transactions.some((tr) => tr.annotation(fromProps))) {
              const text = u.state.doc.toString();
              echoes.current.reported(text);
              latest.current.onChange(text);
            }
          }),
        ],
      }),
    });
    view.current = v;
    return () => {
      view.current = null;
      v.destroy();
      parent.remove();
    };
  }, []);

  // The text, when it changed outside the editor (a loaded template, a captured payload taken as test data).
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    // A value the editor reported itself may be behind the text (typing went on): not set back.
    if (echoes.current.isEcho(props.value)) return;
    const change = textChange(v.state.doc.toString(), props.value);
    if (change) v.dispatch({ changes: change, annotations: fromProps.of(true) });
  }, [props.value]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    let current = true;
    v.dispatch({ effects: parts.current.twig.reconfigure(twigLayer(props.language)) });
    loadBaseLanguage(props.language).then(
      (ext) => {
        if (current && view.current === v) v.dispatch({ effects: parts.current.language.reconfigure(ext) });
      },
      // Without its chunk (a failed load), the editor still works, with the Twig colours only.
      () => {},
    );
    return () => {
      current = false;
    };
  }, [props.language]);

  useEffect(() => {
    const v = view.current;
    if (v) v.dispatch(markersTransaction(v.state, props.markers ?? []));
  }, [props.markers]);

  useEffect(() => {
    view.current?.dispatch({
      effects: parts.current.data.reconfigure(completionData.of(props.completionData)),
    });
  }, [props.completionData]);

  useEffect(() => {
    view.current?.dispatch({
      effects: parts.current.readOnly.reconfigure(readOnlyState(props.readOnly === true)),
    });
  }, [props.readOnly]);

  useEffect(() => {
    view.current?.dispatch({
      effects: parts.current.label.reconfigure(
        EditorView.contentAttributes.of({ 'aria-label': props.label }),
      ),
    });
  }, [props.label]);

  return <div class="code-editor" ref={host} />;
}
