import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './app.tsx';
import { takeSignInCode } from './take-sign-in-code.ts';
import { followLinksInPlace } from './use-route.ts';

const signInCode = takeSignInCode();
followLinksInPlace();
const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(<App signInCode={signInCode} />, root);
}
