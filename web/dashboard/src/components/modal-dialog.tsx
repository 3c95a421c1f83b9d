import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal `<dialog>`: the browser keeps the focus inside it and closes it on Escape. It exists
 * only while rendered; the caller drops it (and anything secret in it) from the DOM on close.
 */
export function ModalDialog(props: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    element.showModal();
    const close = () => props.onClose();
    element.addEventListener('close', close);
    return () => {
      element.removeEventListener('close', close);
      if (element.open) element.close();
    };
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="dialog-title" class="dialog">
      <h2 id="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  );
}
