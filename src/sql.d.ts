// Text imports (`import sql from "./x.sql" with { type: "text" }`) bundled by Bun.
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "*.css" {
  const text: string;
  export default text;
}
