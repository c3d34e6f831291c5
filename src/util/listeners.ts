/**
 * The one listener fan-out: `add` a listener (it returns the unsubscribe), `emit` to every
 * listener in the order they were added. `emit` calls the listeners registered when it starts, so
 * a listener that unsubscribes itself (or another) during an emit never makes a later one miss
 * that event.
 *
 * `isolate: true` is for emitters on a safety or I/O path (the gate, a servo bus): a listener that
 * throws neither reaches the emitter nor keeps the event from the listeners after it. Without it,
 * the first throw propagates to the emitter and the listeners after it are not called.
 */
export class Listeners<A extends unknown[]> {
  /** Replaced, never changed in place (copy on write): an emit keeps iterating the array it began with. */
  private list: readonly ((...args: A) => void)[] = [];

  constructor(private readonly options: { isolate?: boolean } = {}) {}

  get size(): number {
    return this.list.length;
  }

  add(listener: (...args: A) => void): () => void {
    this.list = [...this.list, listener];
    let added = true;
    return () => {
      if (!added) return;
      added = false;
      const i = this.list.indexOf(listener);
      if (i >= 0) this.list = [...this.list.slice(0, i), ...this.list.slice(i + 1)];
    };
  }

  emit(...args: A): void {
    const now = this.list;
    if (this.options.isolate !== true) {
      for (const l of now) l(...args);
      return;
    }
    for (const l of now) {
      try {
        l(...args);
      } catch {
        // isolated: see the class comment
      }
    }
  }
}
