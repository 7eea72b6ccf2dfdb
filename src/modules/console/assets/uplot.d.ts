// uPlot's browser build (a package of the project), imported as text and served from the binary.
declare module "uplot/dist/uPlot.iife.min.js" {
  const text: string;
  export default text;
}
