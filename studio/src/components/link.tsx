import type { ComponentChildren } from 'preact';
import { BASE, onLink } from '../router.ts';

/** An anchor to a studio path: a real link (new tab, copy address) that navigates in place on a plain click. */
export function Link(props: { to: string; children: ComponentChildren; class?: string }) {
  return (
    <a href={BASE + props.to} class={props.class} onClick={(event) => onLink(event, props.to)}>
      {props.children}
    </a>
  );
}
