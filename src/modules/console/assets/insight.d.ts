// insight.js is imported as text (with { type: "text" }) and served to browsers as is.
declare const text: string;
export default text;
