import { render } from 'preact';
import { Session } from './api/session.ts';
import { App } from './app.tsx';
import './styles.css';

const session = new Session();
void session.keepAcrossReloads();
render(<App session={session} />, document.getElementById('app')!);
