/** Stack is a last-in, first-out list. */
export class Stack<T> {
  private items: T[] = [];

  push(x: T): void {
    this.items.push(x);
  }

  pop(): T | undefined {
    return this.items.pop();
  }

  /** peekTop returns the top item without removing it. */
  peekTop(): T | undefined {
    return this.items[this.items.length - 1];
  }
}
