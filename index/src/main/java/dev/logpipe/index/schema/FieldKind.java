package dev.logpipe.index.schema;

/** The type of a structured field's value, as indexed; a shard's metadata lists the kinds seen per field name. */
public enum FieldKind {
    /** A string: keyword {@code fields.<name>}. */
    KEYWORD(""),
    /** A whole number: keyword {@code fields.<name>} plus a long point and doc values {@code fields.<name>#long}. */
    LONG("#long"),
    /** Any other number: keyword plus a double point and doc values {@code fields.<name>#double}. */
    DOUBLE("#double"),
    /** true/false: keyword {@code fields.<name>} with the text {@code true} or {@code false}. */
    BOOLEAN("");

    private final String suffix;

    FieldKind(String suffix) {
        this.suffix = suffix;
    }

    /** What the engine appends to a field's name for its typed copy ({@code #long}, {@code #double}, or nothing). */
    public String suffix() {
        return suffix;
    }

    /** The kind of a record field value (a String, Number or Boolean, as {@code LogRecord} allows). */
    public static FieldKind of(Object value) {
        if (value instanceof String) {
            return KEYWORD;
        }
        if (value instanceof Boolean) {
            return BOOLEAN;
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return LONG;
        }
        if (value instanceof Number) {
            return DOUBLE;
        }
        throw new IllegalArgumentException("a field value must be a string, number or boolean, was "
                + (value == null ? "null" : value.getClass().getSimpleName()));
    }
}
