import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './app.tsx';
import { takeSignInCode } from './take-sign-in-code.ts';
import { followLinksInPlace } from './use-route.ts';

const signInCode = takeSignInCode();
// A second link pasted into a tab already on the sign-in page changes only the fragment, which
// loads nothing: start again with it.
window.addEventListener('hashchange', () => {
  if (location.hash.includes('code=')) location.reload();
});
followLinksInPlace();
const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(<App signInCode={signInCode} />, root);
}
