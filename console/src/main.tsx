/** The console's entry: its styles and the app, rendered into `#app` of the generated index.html. */
import { render } from 'preact';
import { App } from './app';
import './styles.css';

render(<App />, document.getElementById('app')!);
