package dev.logpipe.query.internal.loki;

/** A LogQL text that does not parse, or uses a construct logpipe does not answer; the position is 0-based. */
public final class InvalidLogQl extends IllegalArgumentException {
    private final int position;

    public InvalidLogQl(String message, int position) {
        super(message, null);
        this.position = position;
    }

    /** An unsupported construct, named. */
    static InvalidLogQl unsupported(String construct, int position) {
        return new InvalidLogQl(construct + " is not supported by logpipe's LogQL (docs/loki.md#logql)", position);
    }

    public int position() {
        return position;
    }

    @Override
    public String getMessage() {
        return "parse error at position " + (position + 1) + ": " + super.getMessage();
    }
}
