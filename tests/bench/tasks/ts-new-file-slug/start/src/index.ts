export { makePost } from "./posts";
