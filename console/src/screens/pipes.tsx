import { Page } from '../ui/components.tsx';

/** Placeholder: the pipes screen is being built. */
export default function Screen(_props: { params: Record<string, string> }) {
  return <Page title="pipes">{null}</Page>;
}
