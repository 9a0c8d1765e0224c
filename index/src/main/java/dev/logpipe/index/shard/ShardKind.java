package dev.logpipe.index.shard;

/** What a shard holds; each kind has its own directory tree under the data directory. */
public enum ShardKind {
    /** Accepted records: {@code DATA/index/<tenant>/<yyyy-mm-dd>/}. */
    RECORDS("index"),
    /** Rejected records with their reasons: {@code DATA/dead-letters/<tenant>/<yyyy-mm-dd>/}. */
    DEAD_LETTERS("dead-letters");

    private final String directory;

    ShardKind(String directory) {
        this.directory = directory;
    }

    /** The name of this kind's directory under the data directory. */
    public String directory() {
        return directory;
    }
}
