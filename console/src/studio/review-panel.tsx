// PLACEHOLDER: helper E builds the review UI in this file (submit, approve, reject, ban, unban);
// the lead takes E's file at merge. It renders nothing here.
import type { StudioRole } from './studio-session.ts';
import type { TemplateView } from './template-model.ts';

export function ReviewPanel(_props: {
  template: TemplateView;
  role: StudioRole;
  onChanged(model: TemplateView): void;
}) {
  return null;
}
