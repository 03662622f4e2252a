import { Stack } from "./stack";

/** History keeps the states of a document for undo. */
export class History {
  private states = new Stack<string>();

  record(state: string): void {
    this.states.push(state);
  }

  current(): string {
    return this.states.peekTop() ?? "";
  }

  undo(): string {
    this.states.pop();
    return this.current();
  }
}
