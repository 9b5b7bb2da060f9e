import { Page } from '../ui/components.tsx';

/** Placeholder: the pipe screen is being built. */
export default function Screen(_props: { params: Record<string, string> }) {
  return <Page title="pipe">{null}</Page>;
}
