import { EditorView } from '@codemirror/view';

/**
 * Typing over a selection, done by the editor instead of the browser. Chromium deletes the
 * selection and, to keep the look of the text that was there (a highlight colour, bold), puts
 * the typed text in an element with an inline `style`, which the console's CSP refuses: a CSP
 * error on the console at each such keystroke (CodeMirror redraws the line either way). The
 * editor makes this one edit itself, through the same input handlers (closing brackets...) as
 * typing; other input (composition, deletion, typing without a selection) stays the browser's.
 */
export const typeOverSelection = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const text = event.data;
    if (event.inputType !== 'insertText' || text === null || view.composing || view.state.readOnly)
      return false;
    const { state } = view;
    if (state.selection.ranges.every((r) => r.empty)) return false;
    event.preventDefault();
    const { from, to } = state.selection.main;
    const insert = () =>
      state.update(state.replaceSelection(text), { userEvent: 'input.type', scrollIntoView: true });
    if (!state.facet(EditorView.inputHandler).some((handle) => handle(view, from, to, text, insert))) {
      view.dispatch(insert());
    }
    return true;
  },
});
