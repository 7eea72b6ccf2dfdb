// Value schemas shared by both entities' catalogues.
import { Type as T } from "@sinclair/typebox";

export const NullableString = T.Union([T.String(), T.Null()]);
export const NullableNumber = T.Union([T.Number(), T.Null()]);
export const NullableInteger = T.Union([T.Integer(), T.Null()]);
export const DateTime = T.String({ format: "date-time" });

/** One of a fixed list of strings. */
export const oneOf = (values: readonly string[]) => T.Union(values.map((v) => T.Literal(v)));
