package dev.logpipe.archive.format;

/**
 * The labels whose distinct values each block lists in the footer (pruning a block without fetching it), named as the
 * query language names them.
 */
public enum Label {
    LEVEL("level"),
    SERVICE("service"),
    INSTANCE_ID("instance_id"),
    REGION("region");

    /** A block lists at most this many values of a label; past it the label is truncated (never pruned on). */
    public static final int MAX_VALUES = 64;
    /** A value longer than this (in chars) truncates the label's list. */
    public static final int MAX_VALUE_LENGTH = 256;

    private final String field;

    Label(String field) {
        this.field = field;
    }

    public String field() {
        return field;
    }

    String of(ArchivedRecord r) {
        return switch (this) {
            case LEVEL -> r.level().name();
            case SERVICE -> r.service();
            case INSTANCE_ID -> r.instanceId();
            case REGION -> r.region();
        };
    }
}
