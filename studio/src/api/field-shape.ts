/** How a field is shown and edited, from its schema in the caller's OpenAPI document. */
export type FieldKind =
  | 'text'
  | 'number'
  | 'integer'
  | 'boolean'
  /** A timestamp without a zone, `YYYY-MM-DDThh:mm:ss` (docs/api.md §4 "Value formats"). */
  | 'datetime'
  /** A timestamp with a zone, answered in UTC with its offset (`…+00:00`). */
  | 'zoned-datetime'
  | 'date'
  /** `hh:mm:ss`. */
  | 'time'
  | 'uuid'
  | 'json'
  | 'enum';

export type FieldShape = {
  name: string;
  kind: FieldKind;
  nullable: boolean;
  /** The allowed values of an enum field. */
  choices: string[];
  setByServer: boolean;
  /**
   * A number that may also be sent as text, for values a double cannot hold (int8, numeric) or no JSON
   * number can be (a float's or numeric's `NaN`, `Infinity`, `-Infinity`).
   */
  acceptsText: boolean;
  maxLength: number | null;
  /** The item a foreign key points at, when the caller may read its collection (`x-related-collection`). */
  related: { collection: string; field: string } | null;
};
