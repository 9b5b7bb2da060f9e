import { Page } from '../ui/components.tsx';

/** Placeholder: the guild screen is being built. */
export default function Screen(_props: { params: Record<string, string> }) {
  return <Page title="guild">{null}</Page>;
}
