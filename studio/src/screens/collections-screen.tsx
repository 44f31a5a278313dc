import { Link } from '../components/link.tsx';
import { useStudio } from '../studio-context.ts';

/** The collections the caller may read; nothing else is named, not even as disabled. */
export function CollectionsScreen() {
  const { capabilities } = useStudio();
  return (
    <section aria-labelledby="collections-title">
      <h1 id="collections-title">Collections</h1>
      {capabilities.collections.length === 0 ? (
        <p>There is no collection you may read.</p>
      ) : (
        <ul class="collections">
          {capabilities.collections.map((collection) => (
            <li key={collection.name}>
              <Link to={`/collections/${encodeURIComponent(collection.name)}`}>{collection.name}</Link>
              <span class="muted"> · {collection.fields.length} fields</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
