import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A button for something that cannot be undone: it asks first, in place ("Delete …? Yes / Cancel"), with
 * the focus on "Cancel" so that Enter pressed twice does not confirm by accident.
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirm: string;
  onConfirm: () => Promise<void> | void;
}) {
  const asking = useSignal(false);
  const busy = useSignal(false);
  const cancel = useRef<HTMLButtonElement>(null);
  const ask = useRef<HTMLButtonElement>(null);
  /** Whether the question was open: its buttons go with it, and the focus would fall to the page's top. */
  const asked = useRef(false);
  useEffect(() => {
    if (asking.value) cancel.current?.focus();
    else if (asked.current) ask.current?.focus();
    asked.current = asking.value;
  }, [asking.value]);
  if (!asking.value) {
    return (
      <button type="button" class="danger" ref={ask} onClick={() => (asking.value = true)}>
        {props.label}
      </button>
    );
  }
  return (
    <fieldset class="confirm">
      <legend>{props.question}</legend>
      <button
        type="button"
        class="danger"
        disabled={busy.value}
        onClick={async () => {
          busy.value = true;
          try {
            await props.onConfirm();
          } finally {
            busy.value = false;
            asking.value = false;
          }
        }}
      >
        {props.confirm}
      </button>
      <button type="button" ref={cancel} onClick={() => (asking.value = false)}>
        Cancel
      </button>
    </fieldset>
  );
}
