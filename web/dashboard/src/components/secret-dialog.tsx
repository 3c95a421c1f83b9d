import { useState } from 'preact/hooks';
import { ModalDialog } from './modal-dialog.tsx';

/**
 * A new token's secret, shown once. It lives only in the caller's state and this dialog: closing
 * the dialog drops both, and nothing writes it to web storage or a cookie.
 */
export function SecretDialog(props: { name: string; secret: string; onClose: () => void }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <ModalDialog title={`Token “${props.name}”`} onClose={props.onClose}>
      <p>
        Copy this token now. It is shown only once: the gateway keeps only its hash and cannot show
        it again.
      </p>
      <label for="new-token-secret">Token</label>
      <input
        id="new-token-secret"
        class="secret"
        type="text"
        readOnly
        value={props.secret}
        onFocus={(event) => (event.target as HTMLInputElement).select()}
      />
      <p role="status" class="muted">
        {copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Select the text and copy it.' : ''}
      </p>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={props.onClose}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}
