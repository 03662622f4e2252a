export interface Shape {
  area(): number;
}

export type Id = string;

export class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return compute(this.side);
  }
}

export function compute(n: number): number {
  return n * n;
}

enum Color { Red, Green }
