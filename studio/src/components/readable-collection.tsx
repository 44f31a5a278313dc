import type { VNode } from 'preact';
import type { CollectionShape } from '../api/capabilities.ts';
import { useStudio } from '../studio-context.ts';

/**
 * Renders `body` with the collection the caller may read by that name, or says there is none: a collection
 * the caller may not read and one that does not exist read alike, as the API answers them.
 */
export function ReadableCollection(props: { name: string; children: (shape: CollectionShape) => VNode }) {
  const { capabilities } = useStudio();
  const shape = capabilities.collections.find((candidate) => candidate.name === props.name);
  if (shape) return props.children(shape);
  return (
    <section>
      <h1>{props.name}</h1>
      <p role="alert">There is no collection of this name that you may read.</p>
    </section>
  );
}
