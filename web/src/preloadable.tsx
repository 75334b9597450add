/**
 * A page that is a chunk of its own, which can be asked for early (beside the session request,
 * when the address is already that page's) and is then drawn at once.
 *
 * React.lazy suspends on its first drawing even when the chunk has already arrived, and React
 * shows a suspended boundary's content no sooner than 300 ms after its fallback was shown (it
 * throttles reveals). A console page behind two lazy chunks paid that twice (measured: 1.05 s to
 * the console's heading on loopback, of which ~0.6 s idle). A chunk that has arrived is drawn
 * here without suspending; one still on its way suspends as React.lazy does.
 */
import { lazy, type ComponentType } from 'react';

export interface Preloadable<P extends object> {
  (props: P): React.JSX.Element;
  /** Starts loading the chunk (once); later calls return the same promise. */
  preload(): Promise<ComponentType<P>>;
}

export function preloadable<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): Preloadable<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  const preload = () =>
    (loading ??= load().then(
      (m) => (loaded = m.default),
      (err: unknown) => {
        loading = undefined; // a failed load (offline, a new deploy) is tried again next time
        throw err;
      },
    ));
  const Lazy = lazy(async () => ({ default: await preload() }));
  const Page = (props: P) => {
    const Loaded = loaded;
    return Loaded ? <Loaded {...props} /> : <Lazy {...props} />;
  };
  return Object.assign(Page, { preload });
}
