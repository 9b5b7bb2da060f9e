import { Page } from '../ui/components.tsx';

/** Placeholder: the first-pipe screen is being built. */
export default function Screen(_props: { params: Record<string, string> }) {
  return <Page title="first-pipe">{null}</Page>;
}
