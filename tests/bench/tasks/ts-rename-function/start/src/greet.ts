import { getUsr } from "./users";

/** hello greets the user with that id, or a stranger. */
export function hello(id: number): string {
  const u = getUsr(id);
  return u ? `Hello, ${u.name}` : "Hello, stranger";
}
