// PLACEHOLDER (helper D owns this file)
// The template studio (templates/:id and templates/new) is helper D's screen; this stand-in only
// lets the routes in app.tsx type-check and build on the screens branch. The lead replaces it at merge.
import { Page } from '../ui/components.tsx';

export default function TemplateScreen(props: { params: Record<string, string> }) {
  return (
    <Page title="Template studio">
      <p class="muted">{props.params.id}</p>
    </Page>
  );
}
