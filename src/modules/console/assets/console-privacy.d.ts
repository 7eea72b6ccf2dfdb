// The personal-data pages' script and stylesheet are imported as text and served as they are.
declare const text: string;
export default text;
