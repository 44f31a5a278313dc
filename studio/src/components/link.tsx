import { type ComponentChildren, createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { BASE, onLink } from '../router.ts';

/**
 * The path the screens below live under: empty for the studio itself, `/preview/<role>` inside a role
 * preview, so the same screens link within the preview.
 */
export const LinkScope = createContext('');

/** An anchor to a studio path: a real link (new tab, copy address) that navigates in place on a plain click. */
export function Link(props: { to: string; children: ComponentChildren; class?: string }) {
  const to = useContext(LinkScope) + props.to;
  return (
    <a href={BASE + to} class={props.class} onClick={(event) => onLink(event, to)}>
      {props.children}
    </a>
  );
}
